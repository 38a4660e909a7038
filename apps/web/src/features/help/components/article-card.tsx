import type { HelpArticle } from '@mi/contracts/help';
import { ArrowRight, CalendarDays } from 'lucide-react';
import { Link } from 'react-router';
import { Badge } from '@/components/ui/badge';
import { Card, CardContent } from '@/components/ui/card';
import { helpArticlePath } from '@/config/paths';
import { formatDate } from '@/lib/format';

/** One article in the list: title, Featured badge, category, updated date, description, 'Read more'. */
export function ArticleCard({ article, from }: { article: HelpArticle; from: string }) {
  const to = helpArticlePath(article._id);
  return (
    <li aria-label={article.title} className="list-none">
      <Card className="flex h-full flex-col">
        <CardContent className="flex flex-1 flex-col gap-3 p-5">
          <div className="flex flex-wrap items-center gap-2">
            <Badge variant="secondary">{article.category}</Badge>
            {article.featured && <Badge>Featured</Badge>}
          </div>
          <h2 className="text-lg leading-snug font-semibold">
            <Link to={to} state={{ from }} className="hover:underline">
              {article.title}
            </Link>
          </h2>
          <p className="flex items-center gap-1.5 text-xs text-muted-foreground">
            <CalendarDays className="size-3.5" aria-hidden="true" />
            Updated {formatDate(article.updatedAt)}
          </p>
          <p className="flex-1 text-sm text-muted-foreground">{article.description}</p>
          <Link
            to={to}
            state={{ from }}
            className="inline-flex items-center gap-1 self-start text-sm font-medium text-primary hover:underline"
            aria-label={`Read more: ${article.title}`}
          >
            Read more <ArrowRight className="size-4" aria-hidden="true" />
          </Link>
        </CardContent>
      </Card>
    </li>
  );
}
