import { cn } from '@/lib/utils';

/** Typography for article HTML (headings, lists, links, images, code). */
export const ARTICLE_CONTENT_CLASS = cn(
  'max-w-none text-[0.95rem] leading-7 text-foreground',
  '[&_p]:my-3 [&_h2]:mt-8 [&_h2]:mb-3 [&_h2]:text-xl [&_h2]:font-semibold [&_h3]:mt-6 [&_h3]:mb-2 [&_h3]:text-lg [&_h3]:font-semibold',
  '[&_h4]:mt-4 [&_h4]:font-semibold [&_ul]:my-3 [&_ul]:list-disc [&_ul]:pl-6 [&_ol]:my-3 [&_ol]:list-decimal [&_ol]:pl-6 [&_li]:my-1',
  '[&_a]:font-medium [&_a]:text-primary [&_a]:underline [&_a]:underline-offset-2',
  '[&_img]:my-4 [&_img]:h-auto [&_img]:max-w-full [&_img]:rounded-md [&_img]:border [&_img]:shadow-sm',
  '[&_code]:rounded [&_code]:bg-muted [&_code]:px-1 [&_code]:py-0.5 [&_code]:text-[0.85em] [&_pre]:overflow-x-auto [&_pre]:rounded-md [&_pre]:bg-muted [&_pre]:p-3',
  '[&_blockquote]:border-l-4 [&_blockquote]:pl-4 [&_blockquote]:text-muted-foreground [&_hr]:my-6',
);

/**
 * An article's HTML. The server sanitised it on save to an allowlist (no script, no event
 * handler, no javascript: URL, images only from the help centre), and the page's content security
 * policy runs no inline script either, so it is rendered as it is.
 */
export function ArticleContent({ html, className }: { html: string; className?: string }) {
  return (
    <div
      className={cn(ARTICLE_CONTENT_CLASS, className)}
      data-testid="article-content"
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}
