export type SortDir = 'asc' | 'desc';
export interface SortState<K extends string> {
  key: K;
  dir: SortDir;
}

/** Clicking the sorted column again turns its direction; another column starts ascending. */
export function nextSort<K extends string>(current: SortState<K>, key: K): SortState<K> {
  return { key, dir: current.key === key && current.dir === 'asc' ? 'desc' : 'asc' };
}

/**
 * How a list sorts by one column: the value compared (numbers as numbers, text in the browser's
 * collation), or a comparison of two rows where the value alone cannot say (turnaround times).
 */
export type SortBy<T> = ((row: T) => string | number) | { compare: (a: T, b: T) => number };
export type SortColumns<T, K extends string> = { [P in K]: SortBy<T> };

/** What `localeCompare` does with no locale or options, made once rather than per comparison. */
const collator = new Intl.Collator();

/**
 * `rows` sorted by `sort` (a new array). Each row's value is read once, not twice per comparison;
 * ties keep the order the rows came in.
 */
export function sortRows<T, K extends string>(
  rows: readonly T[],
  columns: SortColumns<T, K>,
  sort: SortState<K>,
): T[] {
  const by = columns[sort.key];
  const factor = sort.dir === 'asc' ? 1 : -1;
  if (typeof by !== 'function') return [...rows].sort((a, b) => by.compare(a, b) * factor);
  const keyed = rows.map((row) => ({ row, value: by(row) }));
  keyed.sort((a, b) => {
    const order =
      typeof a.value === 'number' && typeof b.value === 'number'
        ? a.value - b.value
        : collator.compare(String(a.value), String(b.value));
    return order * factor;
  });
  return keyed.map((k) => k.row);
}

/** Lower case without accents, so 'jerome' finds 'Jérôme'. */
export function foldText(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Whether any of `values` holds the (folded) search text; an empty search matches everything. */
export function matchesText(values: ReadonlyArray<string | null | undefined>, query: string): boolean {
  if (!query) return true;
  return values.some((value) => value != null && foldText(value).includes(query));
}
