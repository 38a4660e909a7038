import type { ReactNode } from 'react';
import { Brand } from '@/components/brand';
import { useDocumentTitle } from '@/components/page-header';
import { Card, CardContent, CardDescription, CardHeader } from '@/components/ui/card';

/**
 * The shell of the sign-in pages and of the account status a professional waits on: the product
 * mark above a centred card with the page's title (also the tab title). `icon` sits above the title.
 */
export function AuthLayout({
  title,
  description,
  icon,
  children,
  wide = false,
}: {
  title: string;
  description?: string;
  icon?: ReactNode;
  children: ReactNode;
  wide?: boolean;
}) {
  useDocumentTitle(title);
  return (
    <div className="flex min-h-full flex-col bg-linear-to-b from-accent/60 to-background">
      <header className="px-4 py-4 sm:px-8">
        <Brand />
      </header>
      <main className="flex flex-1 items-start justify-center px-4 pb-12 pt-4 sm:items-center sm:pt-0">
        <Card className={wide ? 'w-full max-w-xl' : 'w-full max-w-md'}>
          <CardHeader className="text-center">
            {icon}
            <h1 className="text-xl font-semibold tracking-tight">{title}</h1>
            {description && <CardDescription>{description}</CardDescription>}
          </CardHeader>
          <CardContent>{children}</CardContent>
        </Card>
      </main>
    </div>
  );
}
