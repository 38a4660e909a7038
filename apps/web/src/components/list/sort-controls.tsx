import { ArrowDown, ArrowUp, ChevronsUpDown } from 'lucide-react';
import { NativeSelect } from '@/components/ui/native-select';
import { nextSort, type SortDir, type SortState } from './sort';

/** A sortable column heading of a table: a button that sorts by it, with aria-sort on the heading. */
export function SortHeader<K extends string>({
  sortKey,
  label,
  sort,
  onSort,
}: {
  sortKey: K;
  label: string;
  sort: SortState<K>;
  onSort: (next: SortState<K>) => void;
}) {
  const active = sort.key === sortKey;
  const Icon = !active ? ChevronsUpDown : sort.dir === 'asc' ? ArrowUp : ArrowDown;
  return (
    <th
      scope="col"
      className="px-3 py-2 text-left font-medium"
      aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined}
    >
      <button
        type="button"
        className="inline-flex items-center gap-1 whitespace-nowrap hover:underline"
        onClick={() => onSort(nextSort(sort, sortKey))}
      >
        {label}
        <Icon className="size-3.5" aria-hidden="true" />
      </button>
    </th>
  );
}

const DIRECTION_WORDS = {
  text: ['A to Z', 'Z to A'],
  number: ['low to high', 'high to low'],
  date: ['oldest first', 'newest first'],
} as const;

/**
 * The same sorting as one select, for the card layout of narrow screens where there are no
 * column headings to click: each column in both directions.
 */
export function SortSelect<K extends string>({
  columns,
  sort,
  onSort,
}: {
  columns: Array<{ key: K; label: string; kind?: keyof typeof DIRECTION_WORDS }>;
  sort: SortState<K>;
  onSort: (next: SortState<K>) => void;
}) {
  return (
    <NativeSelect
      aria-label="Sort by"
      value={`${sort.key}:${sort.dir}`}
      onChange={(e) => {
        const [key, dir] = e.target.value.split(':') as [K, SortDir];
        onSort({ key, dir });
      }}
      className="sm:w-60"
    >
      {columns.flatMap((c) => {
        const [up, down] = DIRECTION_WORDS[c.kind ?? 'text'];
        return [
          <option key={`${c.key}:asc`} value={`${c.key}:asc`}>
            {`${c.label}: ${up}`}
          </option>,
          <option key={`${c.key}:desc`} value={`${c.key}:desc`}>
            {`${c.label}: ${down}`}
          </option>,
        ];
      })}
    </NativeSelect>
  );
}
