import type { HelpArticleInput } from '@mi/contracts/help';
import { sanitizeArticleHtml } from '@mi/contracts/help-html';
import { useMemo } from 'react';
import { Badge } from '@/components/ui/badge';
import { Card, CardContent } from '@/components/ui/card';
import { HELP_CONTENT_CLASS } from './help-content-class';

/**
 * The editor's preview: the draft as readers will see it. Its HTML goes through the sanitiser the
 * server applies on save (packages/contracts/src/help-html.ts) before it is shown, so nothing the
 * help centre drops (scripts, event handlers, foreign pictures) runs or shows here either.
 */
export function HelpArticlePreview({ values }: { values: HelpArticleInput }) {
  const html = useMemo(() => sanitizeArticleHtml(values.content), [values.content]);
  return (
    <Card>
      <CardContent className="grid gap-3 p-6" data-testid="article-preview">
        <div className="flex flex-wrap gap-2">
          <Badge variant="secondary">{values.category}</Badge>
          {values.featured && <Badge>Featured</Badge>}
          {!values.published && <Badge variant="outline">Draft</Badge>}
        </div>
        <h2 className="text-2xl font-semibold">{values.title || 'Untitled article'}</h2>
        <p className="text-muted-foreground">{values.description}</p>
        <div
          className={HELP_CONTENT_CLASS}
          data-testid="preview-content"
          dangerouslySetInnerHTML={{ __html: html }}
        />
        <p className="text-xs text-muted-foreground">
          This is what readers will see: anything the help centre does not allow (scripts, event handlers,
          pictures from other sites) is left out here and when you save.
        </p>
      </CardContent>
    </Card>
  );
}
