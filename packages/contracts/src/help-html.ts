import sanitizeHtml from 'sanitize-html';
import { HELP_IMAGE_PATH } from './help';

/** An image the help centre serves itself: `/api/kb/images/<name>` (apps/server/src/modules/help/help.routes.ts). */
export const HELP_IMAGE_NAME = /^[a-z0-9][a-z0-9-]{0,79}\.(webp|png)$/;

function isOwnImage(src: string | undefined): boolean {
  return Boolean(src?.startsWith(HELP_IMAGE_PATH) && HELP_IMAGE_NAME.test(src.slice(HELP_IMAGE_PATH.length)));
}

const isExternal = (href: string | undefined) => Boolean(href && /^(https?:|mailto:)/i.test(href));

/**
 * The only HTML an article may hold: the editor's formatting, links (http, https, mailto or a path
 * of this site) and images served by the help centre itself. Everything else is dropped: scripts,
 * styles, event handlers, `javascript:` and `data:` URLs, iframes, forms. The content security
 * policy (img-src 'self') would block foreign images anyway; dropping them keeps articles honest.
 */
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'h2',
    'h3',
    'h4',
    'strong',
    'b',
    'em',
    'i',
    'u',
    's',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'img',
    'hr',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'target', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    ol: ['start'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    // The article title is the page's only h1.
    h1: 'h2',
    h5: 'h4',
    h6: 'h4',
    a: (tagName, attribs) => {
      const { href, title } = attribs;
      const out: Record<string, string> = {};
      if (href) out.href = href;
      if (title) out.title = title;
      if (isExternal(href)) {
        out.target = '_blank';
        out.rel = 'noopener noreferrer nofollow';
      }
      return { tagName, attribs: out };
    },
    // An image nobody described is announced as nothing rather than by its address; the editor
    // asks for a description of each (features/admin help-rich-text-editor.tsx).
    img: (tagName, attribs) => ({ tagName, attribs: { ...attribs, alt: attribs.alt ?? '' } }),
  },
  exclusiveFilter: (frame) => frame.tag === 'img' && !isOwnImage(frame.attribs.src),
};

/**
 * Article HTML reduced to the allowlist above: the one sanitiser of article HTML. The server cleans
 * every article with it on save (what readers see), and the editor's preview cleans the draft with
 * it before showing it, so the preview shows what readers will see.
 */
export function sanitizeArticleHtml(html: string): string {
  return sanitizeHtml(html, OPTIONS).trim();
}
