import { ChevronLeft, ChevronRight, ChevronsLeft, ChevronsRight } from 'lucide-react';
import { Button } from '@/components/ui/button';

const count = new Intl.NumberFormat('en-US');

/** Shows a new page from its top when the list's top (`top`) is scrolled out of sight above. */
export function scrollToListTop(top: HTMLElement | null) {
  if (top && top.getBoundingClientRect().top < 0) top.scrollIntoView({ block: 'start' });
}

/**
 * Below a list longer than one page: which rows are shown ('Studies 26–50 of 120'), and buttons to
 * the first, previous, next and last pages. Nothing for a list of one page.
 */
export function ListPager({
  page,
  pageCount,
  pageSize,
  total,
  onPage,
  noun,
  label,
}: {
  /** 0 is the first page. */
  page: number;
  pageCount: number;
  pageSize: number;
  total: number;
  onPage: (page: number) => void;
  /** What the rows are, capitalised: 'Studies'. */
  noun: string;
  /** The accessible name of the pager: 'Pages of studies'. */
  label: string;
}) {
  if (pageCount <= 1) return null;
  const first = page * pageSize + 1;
  const last = Math.min(total, first + pageSize - 1);
  return (
    <nav aria-label={label} className="flex flex-wrap items-center justify-between gap-2">
      <p className="text-sm text-muted-foreground" aria-live="polite">
        {noun} {count.format(first)}–{count.format(last)} of {count.format(total)}
      </p>
      <div className="flex flex-wrap items-center gap-1">
        <Button
          variant="outline"
          size="sm"
          aria-label="First page"
          disabled={page === 0}
          onClick={() => onPage(0)}
        >
          <ChevronsLeft aria-hidden="true" />
        </Button>
        <Button variant="outline" size="sm" disabled={page === 0} onClick={() => onPage(page - 1)}>
          {/* Words for screen readers only on a phone, where the row would not fit on one line. */}
          <ChevronLeft aria-hidden="true" /> <span className="sr-only sm:not-sr-only">Previous</span>
        </Button>
        <span className="px-2 text-sm text-muted-foreground">
          Page {count.format(page + 1)} of {count.format(pageCount)}
        </span>
        <Button variant="outline" size="sm" disabled={page >= pageCount - 1} onClick={() => onPage(page + 1)}>
          <span className="sr-only sm:not-sr-only">Next</span> <ChevronRight aria-hidden="true" />
        </Button>
        <Button
          variant="outline"
          size="sm"
          aria-label="Last page"
          disabled={page >= pageCount - 1}
          onClick={() => onPage(pageCount - 1)}
        >
          <ChevronsRight aria-hidden="true" />
        </Button>
      </div>
    </nav>
  );
}

/**
 * The pager of a list whose length is not counted (the audit log, which the server pages with a
 * look-ahead row instead of a count): previous and next, and the page number. Nothing while the
 * list fits on its first page.
 */
export function OpenEndedPager({
  page,
  hasMore,
  onPage,
  label,
}: {
  /** 0 is the first page. */
  page: number;
  hasMore: boolean;
  onPage: (page: number) => void;
  /** The accessible name of the pager: 'Audit log pages'. */
  label: string;
}) {
  if (page === 0 && !hasMore) return null;
  return (
    <nav aria-label={label} className="flex flex-wrap items-center justify-end gap-1">
      <Button variant="outline" size="sm" disabled={page === 0} onClick={() => onPage(page - 1)}>
        <ChevronLeft aria-hidden="true" /> <span className="sr-only sm:not-sr-only">Previous</span>
      </Button>
      <span className="px-2 text-sm text-muted-foreground">Page {count.format(page + 1)}</span>
      <Button variant="outline" size="sm" disabled={!hasMore} onClick={() => onPage(page + 1)}>
        <span className="sr-only sm:not-sr-only">Next</span> <ChevronRight aria-hidden="true" />
      </Button>
    </nav>
  );
}
