import { HELP_PAGE_SIZE, HELP_QUERY_MAX } from '@mi/contracts/help';
import { AlertCircle, BookOpen, ChevronLeft, ChevronRight, Search, SearchX, Star } from 'lucide-react';
import { useEffect, useState } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { EmptyState } from '@/components/empty-state';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { cn } from '@/lib/utils';
import { useArticles, type ArticlesQuery } from '../api/get-articles';
import { useHelpCounts } from '../api/get-counts';
import { ArticleCard } from './article-card';

/** The sidebar's two fixed entries; every other tab value is a category name. */
export const FEATURED_TAB = 'featured';
export const ALL_TAB = 'all';
const SEARCH_DELAY_MS = 300;

function SidebarItem({
  label,
  count,
  active,
  icon: Icon,
  onSelect,
}: {
  label: string;
  count: number | undefined;
  active: boolean;
  icon?: typeof Star;
  onSelect: () => void;
}) {
  return (
    <li className="shrink-0">
      <button
        type="button"
        onClick={onSelect}
        aria-current={active ? 'page' : undefined}
        className={cn(
          'flex w-full items-center gap-2 rounded-md px-3 py-2 text-left text-sm whitespace-nowrap transition-colors',
          active ? 'bg-primary text-primary-foreground' : 'hover:bg-accent hover:text-accent-foreground',
        )}
      >
        {Icon && <Icon className="size-4 shrink-0" aria-hidden="true" />}
        <span className="flex-1 truncate">{label}</span>
        {count !== undefined && (
          <span
            className={cn(
              'rounded-full px-2 text-xs tabular-nums',
              active ? 'bg-primary-foreground text-primary' : 'bg-muted text-muted-foreground',
            )}
          >
            {count}
          </span>
        )}
      </button>
    </li>
  );
}

function Pagination({
  page,
  totalPages,
  onPage,
}: {
  page: number;
  totalPages: number;
  onPage: (page: number) => void;
}) {
  if (totalPages <= 1) return null;
  const pages = Array.from({ length: totalPages }, (_, i) => i + 1);
  return (
    <nav aria-label="Pagination" className="flex flex-wrap items-center justify-center gap-1">
      <Button variant="outline" size="sm" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        <ChevronLeft aria-hidden="true" /> Previous
      </Button>
      {totalPages <= 7 ? (
        pages.map((p) => (
          <Button
            key={p}
            variant={p === page ? 'default' : 'ghost'}
            size="sm"
            aria-label={`Page ${p}`}
            aria-current={p === page ? 'page' : undefined}
            onClick={() => onPage(p)}
          >
            {p}
          </Button>
        ))
      ) : (
        <span className="px-2 text-sm text-muted-foreground">
          Page {page} of {totalPages}
        </span>
      )}
      <Button variant="outline" size="sm" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        Next <ChevronRight aria-hidden="true" />
      </Button>
    </nav>
  );
}

/** The empty state of a list, in the specification's words. */
function NoArticles({ tab, q }: { tab: string; q: string }) {
  let text: string;
  if (q) text = `No articles match "${q}". Try other words.`;
  else if (tab === FEATURED_TAB) text = 'No featured articles found.';
  else if (tab === ALL_TAB) text = 'No articles available at the moment.';
  else text = `No articles found in the "${tab}" category.`;
  return (
    <EmptyState icon={q ? SearchX : BookOpen} title="No articles found">
      {text}
    </EmptyState>
  );
}

/**
 * /help: the sidebar of categories with counts (Featured, All Articles, each category), a search
 * across titles and bodies, and article cards six to a page. Tab, page and search live in the
 * address, so Back from an article returns to the same page.
 */
export function HelpCenter() {
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const tab = params.get('tab') || FEATURED_TAB;
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);
  const q = (params.get('q') ?? '').slice(0, HELP_QUERY_MAX);
  // What the user typed into the search box, or null when the box shows the address's search. A
  // category chosen sets it back to null, so a render between the choice and its navigation never
  // sees an emptied box against the old search and schedules that search's removal, which landed
  // after the choice and took the user back to the category they had left.
  const [typed, setTyped] = useState<string | null>(null);

  // The address follows the search box a moment after typing stops.
  useEffect(() => {
    if (typed === null) return;
    const next = typed.trim();
    if (next === q) return;
    const timer = setTimeout(() => {
      setParams(
        (prev) => {
          const out = new URLSearchParams(prev);
          if (next) out.set('q', next);
          else out.delete('q');
          out.delete('page');
          return out;
        },
        { replace: true },
      );
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [typed, q, setParams]);

  const counts = useHelpCounts();
  // A search looks through every article; the sidebar's choice applies again once it is cleared.
  const query: ArticlesQuery = q
    ? { q, page, limit: HELP_PAGE_SIZE }
    : tab === FEATURED_TAB
      ? { featured: true, page, limit: HELP_PAGE_SIZE }
      : tab === ALL_TAB
        ? { page, limit: HELP_PAGE_SIZE }
        : { category: tab, page, limit: HELP_PAGE_SIZE };
  const articles = useArticles(query);

  const select = (next: string) => {
    setTyped(null);
    setParams(next === FEATURED_TAB ? {} : { tab: next });
  };
  const goToPage = (next: number) => {
    setParams((prev) => {
      const out = new URLSearchParams(prev);
      if (next > 1) out.set('page', String(next));
      else out.delete('page');
      return out;
    });
    window.scrollTo({ top: 0 });
  };

  const categoryCounts = counts.data?.categoryCounts ?? {};
  const heading = q
    ? `Search results for "${q}"`
    : tab === FEATURED_TAB
      ? 'Featured'
      : tab === ALL_TAB
        ? 'All Articles'
        : tab;

  let body;
  if (articles.isPending) {
    body = (
      <div className="flex items-center justify-center gap-2 py-16 text-sm text-muted-foreground">
        <Spinner className="size-4" /> Loading articles…
      </div>
    );
  } else if (articles.isError) {
    body = (
      <Alert variant="destructive" role="alert">
        <AlertCircle aria-hidden="true" />
        <AlertTitle>Failed to load articles</AlertTitle>
        <AlertDescription>{errorMessage(articles.error, 'Please try again in a moment.')}</AlertDescription>
      </Alert>
    );
  } else if (articles.data.data.length === 0) {
    body = <NoArticles tab={tab} q={q} />;
  } else {
    const from = `${location.pathname}${location.search}`;
    body = (
      // The previous page stays readable while the next loads (dimming it would fail text contrast);
      // aria-busy tells assistive technology it is about to change.
      <div className="grid gap-6" aria-busy={articles.isPlaceholderData || undefined}>
        <ul className="grid gap-4 md:grid-cols-2" aria-label="Articles">
          {articles.data.data.map((a) => (
            <ArticleCard key={a._id} article={a} from={from} />
          ))}
        </ul>
        <Pagination page={articles.data.page} totalPages={articles.data.totalPages} onPage={goToPage} />
      </div>
    );
  }

  return (
    <div className="grid gap-6 lg:grid-cols-[15rem_minmax(0,1fr)]">
      <aside aria-label="Help categories" className="min-w-0">
        <h2 className="mb-2 hidden px-3 text-xs font-semibold tracking-wide text-muted-foreground uppercase lg:block">
          Categories
        </h2>
        <ul className="-mx-1 flex gap-1 overflow-x-auto px-1 pb-1 lg:mx-0 lg:flex-col lg:overflow-visible lg:px-0">
          <SidebarItem
            label="Featured"
            icon={Star}
            count={counts.data?.featuredCount}
            active={!q && tab === FEATURED_TAB}
            onSelect={() => select(FEATURED_TAB)}
          />
          <SidebarItem
            label="All Articles"
            icon={BookOpen}
            count={counts.data?.totalCount}
            active={!q && tab === ALL_TAB}
            onSelect={() => select(ALL_TAB)}
          />
          {Object.entries(categoryCounts).map(([name, n]) => (
            <SidebarItem
              key={name}
              label={name}
              count={n}
              active={!q && tab === name}
              onSelect={() => select(name)}
            />
          ))}
        </ul>
      </aside>
      <section aria-labelledby="help-list-heading" className="grid min-w-0 content-start gap-4">
        <div className="relative">
          <Search
            className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground"
            aria-hidden="true"
          />
          <Input
            type="search"
            aria-label="Search help articles"
            placeholder="Search help articles..."
            className="pl-9"
            maxLength={HELP_QUERY_MAX}
            value={typed ?? q}
            onChange={(e) => setTyped(e.target.value)}
          />
        </div>
        <h2 id="help-list-heading" className="text-lg font-semibold">
          {heading}
        </h2>
        {body}
      </section>
    </div>
  );
}
