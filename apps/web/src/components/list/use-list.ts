import { useCallback, useMemo, useState } from 'react';
import { foldText, nextSort, sortRows, type SortColumns, type SortState } from './sort';

/**
 * Rows shown at once: a list of thousands renders one page of them. A row of the studies table is
 * about a hundred elements (buttons, menus, icons), so the page is what a sort or a search costs to
 * draw (bench/scale/my-studies-browser.ts).
 */
export const LIST_PAGE_SIZE = 25;

/** Page `page` of `rows` (0 is the first; past the end gives the last page). */
export function pageOf<T>(rows: readonly T[], page: number, pageSize = LIST_PAGE_SIZE) {
  const pageCount = Math.max(1, Math.ceil(rows.length / pageSize));
  const current = Math.min(Math.max(0, page), pageCount - 1);
  return {
    page: current,
    pageCount,
    rows: rows.slice(current * pageSize, (current + 1) * pageSize),
  };
}

/**
 * The page shown (0 is the first), back to the first page whenever one of `resetOn` changes: a new
 * search, filter or sort shows its first rows. A page past the end (the list got shorter) is shown
 * as the last page (pageOf).
 */
export function useListPage(resetOn: readonly unknown[]) {
  const [page, setPage] = useState(0);
  const [seen, setSeen] = useState(resetOn);
  if (seen.length !== resetOn.length || seen.some((value, i) => !Object.is(value, resetOn[i]))) {
    setSeen(resetOn);
    setPage(0);
  }
  return [page, setPage] as const;
}

export interface ListOptions<T, K extends string, F> {
  /** Every row (undefined while loading). The list is not changed in place. */
  rows: readonly T[] | undefined;
  /** The first sort. */
  sort: SortState<K>;
  /** How each sortable column sorts, or a sorter of the whole list (one with its own caches). */
  sortBy: SortColumns<T, K> | ((rows: readonly T[], sort: SortState<K>) => T[]);
  /** Whether a row matches the search text, given folded (lower case, no accents) and trimmed. */
  search?: (row: T, query: string) => boolean;
  /** The first filter values ('all' for no filter by convention). */
  filters?: F;
  /** Whether a row passes the filters. */
  filter?: (row: T, filters: F) => boolean;
  /**
   * A filter of the whole list in place of `search` and `filter`, for a list that folds its text
   * once per row rather than once per keystroke (study-list.ts). It gets the raw search text.
   */
  filterRows?: (rows: readonly T[], search: string, filters: F) => T[];
  /** Rows a page; Infinity shows every row. */
  pageSize?: number;
  /** Other inputs that change which rows show: a change goes back to the first page. */
  resetOn?: readonly unknown[];
}

/**
 * The state of a list screen: its search text, filters, sort and page, and the rows they select.
 * `rows` is the page to draw; `matching` every row that passes, sorted. A new search, filter or
 * sort shows the first page.
 */
export function useList<T, K extends string, F = Record<string, never>>(options: ListOptions<T, K, F>) {
  const { rows: all, sortBy, search: searchFn, filter: filterFn, filterRows } = options;
  const pageSize = options.pageSize ?? LIST_PAGE_SIZE;
  const [search, setSearch] = useState('');
  const [filters, setFilters] = useState<F>(() => options.filters ?? ({} as F));
  const [sort, setSort] = useState(options.sort);
  const resetOn = options.resetOn ?? [];
  const [page, setPage] = useListPage([search, filters, sort, ...resetOn]);

  // Filtered and sorted apart, so that a new sort does not filter again (and the reverse).
  const filtered = useMemo(() => {
    const rows = all ?? [];
    if (filterRows) return filterRows(rows, search, filters);
    const query = foldText(search.trim());
    return rows.filter(
      (row) => (!query || !searchFn || searchFn(row, query)) && (!filterFn || filterFn(row, filters)),
    );
    // The functions are read with the rows (a new function each render must not filter again);
    // what else they read is in `resetOn`.
  }, [all, search, filters, ...resetOn]);
  const matching = useMemo(
    () => (typeof sortBy === 'function' ? sortBy(filtered, sort) : sortRows(filtered, sortBy, sort)),
    [filtered, sort],
  );
  const shown = useMemo(
    () =>
      Number.isFinite(pageSize)
        ? pageOf(matching, page, pageSize)
        : { page: 0, pageCount: 1, rows: matching },
    [matching, page, pageSize],
  );

  const setFilter = useCallback(
    <P extends keyof F>(key: P, value: F[P]) => setFilters((prev) => ({ ...prev, [key]: value })),
    [],
  );
  const sortOn = useCallback((key: K) => setSort((prev) => nextSort(prev, key)), []);

  return {
    search,
    setSearch,
    filters,
    setFilter,
    setFilters,
    sort,
    setSort,
    /** A column heading was clicked: sort by it, or turn its direction. */
    sortOn,
    /** The page shown (0 is the first), within the pages there are. */
    page: shown.page,
    setPage,
    pageCount: shown.pageCount,
    pageSize,
    /** The rows of the page shown. */
    rows: shown.rows,
    /** Every row that passes the search and filters, sorted. */
    matching,
    /** How many rows there are before searching and filtering. */
    total: all?.length ?? 0,
  };
}

export type ListState<T, K extends string, F> = ReturnType<typeof useList<T, K, F>>;
