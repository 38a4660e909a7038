import { zodResolver } from '@hookform/resolvers/zod';
import {
  HELP_CATEGORIES,
  helpArticleInputSchema,
  type AdminHelpArticle,
  type HelpArticleInput,
} from '@mi/contracts/help';
import { ArrowLeft, Eye, FilePlus2, Pencil, Star, StarOff, Trash2, Upload, Undo } from 'lucide-react';
import { lazy, Suspense, useId, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { Link } from 'react-router';
import { FormRow } from '@/components/form-row';
import { listStatus, ListStatus } from '@/components/list/list-status';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Checkbox } from '@/components/ui/checkbox';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { Textarea } from '@/components/ui/textarea';
import { helpArticlePath } from '@/config/paths';
import { toast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import { useAdminHelpArticles, useChangeHelpArticle, type HelpArticleChange } from '../api/help-articles';
import { HelpRichTextEditor } from './help-rich-text-editor';

// The preview brings the article sanitiser, loaded when an admin first asks for a preview.
const HelpArticlePreview = lazy(() =>
  import('./help-article-preview').then((m) => ({ default: m.HelpArticlePreview })),
);

const EMPTY: HelpArticleInput = {
  title: '',
  description: '',
  content: '',
  category: HELP_CATEGORIES[0],
  featured: false,
  published: false,
};

const toInput = (a: AdminHelpArticle): HelpArticleInput => ({
  title: a.title,
  description: a.description,
  content: a.content,
  category: a.category,
  featured: a.featured,
  published: a.published,
});

/** Write or edit one article: fields, the rich-text body, a preview, Save. */
function HelpArticleForm({
  article,
  categories,
  onDone,
}: {
  article: AdminHelpArticle | null;
  categories: string[];
  onDone: () => void;
}) {
  const id = useId();
  const change = useChangeHelpArticle();
  const [preview, setPreview] = useState(false);
  const form = useForm<HelpArticleInput>({
    resolver: zodResolver(helpArticleInputSchema),
    defaultValues: article ? toInput(article) : EMPTY,
  });
  const { errors } = form.formState;
  const values = form.watch();

  const onSubmit = form.handleSubmit((input) => {
    const request: HelpArticleChange = article
      ? { kind: 'update', id: article._id, input }
      : { kind: 'create', input };
    change.mutate(request, {
      onSuccess: () => {
        toast({ title: article ? 'Article saved' : 'Article created', description: input.title });
        onDone();
      },
      onError: (err) => toast({ title: 'Error', description: errorMessage(err), variant: 'destructive' }),
    });
  });

  return (
    <form
      noValidate
      onSubmit={onSubmit}
      className="grid gap-5"
      aria-label={article ? 'Edit article' : 'New article'}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <Button type="button" variant="ghost" onClick={onDone}>
          <ArrowLeft aria-hidden="true" /> All help articles
        </Button>
        <div className="flex gap-2">
          <Button
            type="button"
            variant="outline"
            aria-pressed={preview}
            onClick={() => setPreview((p) => !p)}
          >
            {preview ? <Pencil aria-hidden="true" /> : <Eye aria-hidden="true" />}{' '}
            {preview ? 'Edit' : 'Preview'}
          </Button>
          <Button type="submit" disabled={change.isPending}>
            {change.isPending ? 'Saving…' : 'Save article'}
          </Button>
        </div>
      </div>

      {preview ? (
        <Suspense fallback={<Spinner className="size-5" label="Loading the preview" />}>
          <HelpArticlePreview values={values} />
        </Suspense>
      ) : (
        <div className="grid gap-4">
          <FormRow label="Title" name="title" id={id} error={errors.title?.message}>
            <Input id={`${id}-title`} aria-invalid={!!errors.title} {...form.register('title')} />
          </FormRow>
          <FormRow label="Description" name="description" id={id} error={errors.description?.message}>
            <Textarea
              id={`${id}-description`}
              rows={2}
              aria-invalid={!!errors.description}
              {...form.register('description')}
            />
          </FormRow>
          <FormRow label="Category" name="category" id={id} error={errors.category?.message}>
            <Input
              id={`${id}-category`}
              list={`${id}-categories`}
              aria-invalid={!!errors.category}
              {...form.register('category')}
            />
            <datalist id={`${id}-categories`}>
              {categories.map((c) => (
                <option key={c} value={c} />
              ))}
            </datalist>
          </FormRow>
          <div className="flex flex-wrap gap-6">
            <Controller
              control={form.control}
              name="published"
              render={({ field }) => (
                <div className="flex items-center gap-2">
                  <Checkbox
                    id={`${id}-published`}
                    checked={field.value}
                    onCheckedChange={(v) => field.onChange(v === true)}
                  />
                  <Label htmlFor={`${id}-published`}>Published</Label>
                </div>
              )}
            />
            <Controller
              control={form.control}
              name="featured"
              render={({ field }) => (
                <div className="flex items-center gap-2">
                  <Checkbox
                    id={`${id}-featured`}
                    checked={field.value}
                    onCheckedChange={(v) => field.onChange(v === true)}
                  />
                  <Label htmlFor={`${id}-featured`}>Featured</Label>
                </div>
              )}
            />
          </div>
          <div className="grid gap-2">
            <span id={`${id}-content-label`} className="text-sm font-medium">
              Content
            </span>
            <Controller
              control={form.control}
              name="content"
              render={({ field }) => (
                <HelpRichTextEditor
                  value={field.value}
                  onChange={field.onChange}
                  labelledBy={`${id}-content-label`}
                  invalid={!!errors.content}
                />
              )}
            />
            <FieldError id={`${id}-content-error`} message={errors.content?.message} />
          </div>
        </div>
      )}
    </form>
  );
}

/** Admin → Help articles: every article with its state; write, edit, publish, feature, delete. */
export function HelpArticlesAdmin() {
  const articles = useAdminHelpArticles();
  const change = useChangeHelpArticle();
  const [editing, setEditing] = useState<AdminHelpArticle | 'new' | null>(null);
  const [deleting, setDeleting] = useState<AdminHelpArticle | null>(null);

  const run = (request: HelpArticleChange, done: string) =>
    change.mutate(request, {
      onSuccess: () => toast({ title: done }),
      onError: (err) => toast({ title: 'Error', description: errorMessage(err), variant: 'destructive' }),
    });

  const categories = [...new Set([...HELP_CATEGORIES, ...(articles.data ?? []).map((a) => a.category)])];

  if (editing) {
    return (
      <HelpArticleForm
        key={editing === 'new' ? 'new' : editing._id}
        article={editing === 'new' ? null : editing}
        categories={categories}
        onDone={() => setEditing(null)}
      />
    );
  }

  return (
    <div className="grid gap-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-muted-foreground">
          Articles of the help centre. Drafts are seen only here; published articles reach every signed-in
          user.
        </p>
        <Button onClick={() => setEditing('new')}>
          <FilePlus2 aria-hidden="true" /> New article
        </Button>
      </div>
      <ListStatus
        query={articles}
        count={articles.data?.length ?? 0}
        error="The help articles could not be loaded"
        empty={<p className="text-sm text-muted-foreground">No help articles yet.</p>}
      />
      {listStatus(articles, articles.data?.length ?? 0) === null && (
        <ul className="grid gap-2" aria-label="Help articles">
          {(articles.data ?? []).map((a) => (
            <li key={a._id} aria-label={a.title}>
              <Card>
                <CardContent className="flex flex-col gap-3 p-4 md:flex-row md:items-center">
                  <div className="grid min-w-0 flex-1 gap-1">
                    <div className="flex flex-wrap items-center gap-2">
                      <span className="font-medium">{a.title}</span>
                      {a.published ? <Badge>Published</Badge> : <Badge variant="outline">Draft</Badge>}
                      {a.featured && <Badge variant="secondary">Featured</Badge>}
                    </div>
                    <p className="text-xs text-muted-foreground">
                      {a.category} · Updated {formatDate(a.updatedAt)}
                    </p>
                  </div>
                  <div className="flex flex-wrap gap-1">
                    {a.published && (
                      <Button asChild variant="ghost" size="sm">
                        <Link to={helpArticlePath(a._id)} aria-label={`View ${a.title}`}>
                          <Eye aria-hidden="true" /> View
                        </Link>
                      </Button>
                    )}
                    <Button
                      variant="ghost"
                      size="sm"
                      aria-label={`Edit ${a.title}`}
                      onClick={() => setEditing(a)}
                    >
                      <Pencil aria-hidden="true" /> Edit
                    </Button>
                    <Button
                      variant="ghost"
                      size="sm"
                      disabled={change.isPending}
                      aria-label={`${a.published ? 'Unpublish' : 'Publish'} ${a.title}`}
                      onClick={() =>
                        run(
                          { kind: 'patch', id: a._id, patch: { published: !a.published } },
                          a.published ? 'Article unpublished' : 'Article published',
                        )
                      }
                    >
                      {a.published ? <Undo aria-hidden="true" /> : <Upload aria-hidden="true" />}
                      {a.published ? 'Unpublish' : 'Publish'}
                    </Button>
                    <Button
                      variant="ghost"
                      size="sm"
                      disabled={change.isPending}
                      aria-label={`${a.featured ? 'Unfeature' : 'Feature'} ${a.title}`}
                      onClick={() =>
                        run(
                          { kind: 'patch', id: a._id, patch: { featured: !a.featured } },
                          a.featured ? 'Article no longer featured' : 'Article featured',
                        )
                      }
                    >
                      {a.featured ? <StarOff aria-hidden="true" /> : <Star aria-hidden="true" />}
                      {a.featured ? 'Unfeature' : 'Feature'}
                    </Button>
                    <Button
                      variant="ghost"
                      size="sm"
                      className="text-destructive"
                      aria-label={`Delete ${a.title}`}
                      onClick={() => setDeleting(a)}
                    >
                      <Trash2 aria-hidden="true" /> Delete
                    </Button>
                  </div>
                </CardContent>
              </Card>
            </li>
          ))}
        </ul>
      )}
      <Dialog open={deleting !== null} onOpenChange={(open) => !open && setDeleting(null)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Delete article</DialogTitle>
            <DialogDescription>
              “{deleting?.title}” will be removed from the help centre. This cannot be undone.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setDeleting(null)}>
              Cancel
            </Button>
            <Button
              variant="destructive"
              disabled={change.isPending}
              onClick={() => {
                if (deleting) run({ kind: 'delete', id: deleting._id }, 'Article deleted');
                setDeleting(null);
              }}
            >
              Delete
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </div>
  );
}
