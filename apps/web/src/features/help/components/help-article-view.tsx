import { AlertCircle, ArrowLeft, CalendarDays, FileQuestion } from 'lucide-react';
import { Link, useLocation } from 'react-router';
import { useDocumentTitle } from '@/components/page-header';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { errorMessage, isApiError } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import { useArticle } from '../api/get-article';
import { ArticleContent } from './article-content';

/** 'Back to Help Center', to the list page the reader came from when there was one. */
function BackToHelp() {
  const from = (useLocation().state as { from?: unknown } | null)?.from;
  const to = typeof from === 'string' && from.startsWith(paths.help) ? from : paths.help;
  return (
    <Button asChild variant="outline" className="self-start">
      <Link to={to}>
        <ArrowLeft aria-hidden="true" /> Back to Help Center
      </Link>
    </Button>
  );
}

/** /help/{id}: title, category, updated date, description and the article's content. */
export function HelpArticleView({ id }: { id: string }) {
  const article = useArticle(id);
  useDocumentTitle(article.data?.title ?? 'Help Center');

  if (article.isPending) {
    return (
      <div className="flex items-center justify-center gap-2 py-16 text-sm text-muted-foreground">
        <Spinner className="size-4" /> Loading article…
      </div>
    );
  }
  if (article.isError) {
    const missing = isApiError(article.error, 'NOT_FOUND');
    return (
      <div className="grid gap-6">
        <BackToHelp />
        {missing ? (
          <Card>
            <CardContent className="flex flex-col items-center gap-3 px-6 py-14 text-center">
              <div className="flex size-12 items-center justify-center rounded-full bg-accent text-accent-foreground">
                <FileQuestion className="size-6" aria-hidden="true" />
              </div>
              <h1 className="text-xl font-semibold">Article Not Found</h1>
              <p className="max-w-md text-sm text-muted-foreground">
                The article you&apos;re looking for doesn&apos;t exist or has been removed.
              </p>
            </CardContent>
          </Card>
        ) : (
          <Alert variant="destructive" role="alert">
            <AlertCircle aria-hidden="true" />
            <AlertTitle>Failed to load articles</AlertTitle>
            <AlertDescription>
              {errorMessage(article.error, 'Please try again in a moment.')}
            </AlertDescription>
          </Alert>
        )}
      </div>
    );
  }

  const a = article.data;
  return (
    <article className="grid gap-6">
      <BackToHelp />
      <header className="grid gap-3 border-b pb-6">
        <div className="flex flex-wrap items-center gap-2">
          <Badge variant="secondary">{a.category}</Badge>
          {a.featured && <Badge>Featured</Badge>}
        </div>
        <h1 className="text-2xl font-semibold tracking-tight sm:text-3xl">{a.title}</h1>
        <p className="flex items-center gap-1.5 text-sm text-muted-foreground">
          <CalendarDays className="size-4" aria-hidden="true" />
          Updated {formatDate(a.updatedAt)}
        </p>
        <p className="text-base text-muted-foreground">{a.description}</p>
      </header>
      <ArticleContent html={a.content} className="max-w-3xl" />
    </article>
  );
}
