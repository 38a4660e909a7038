import { humanize } from '@mi/contracts/orders';
import type { ReactNode } from 'react';
import { Input } from '@/components/ui/input';
import { NativeSelect } from '@/components/ui/native-select';

export interface FilterOption {
  value: string;
  label: string;
}

/** One select of the toolbar: 'All …' (value 'all') and the given options. */
export interface ToolbarFilter {
  /** Accessible name of the select. */
  label: string;
  /** The first option, meaning no filter: 'All Scopes', 'All Statuses'. */
  allLabel: string;
  value: string;
  onChange: (value: string) => void;
  options: FilterOption[];
}

/** The distinct values of `items` as sorted options, labelled with underscores as spaces and capitals. */
export function distinctOptions<T>(
  items: readonly T[],
  pick: (item: T) => string,
  label: (value: string) => string = humanize,
): FilterOption[] {
  return [...new Set(items.map(pick))].sort().map((value) => ({ value, label: label(value) }));
}

/**
 * The search box and filter selects above a list (Available Services, Purchased Services,
 * Transaction History). They stack on a phone and sit in one row from `sm` up; `children` adds
 * controls at the end (a sort select on narrow screens).
 */
export function FilterToolbar({
  search,
  onSearch,
  placeholder,
  searchLabel,
  filters = [],
  children,
}: {
  search: string;
  onSearch: (value: string) => void;
  placeholder: string;
  searchLabel: string;
  filters?: ToolbarFilter[];
  children?: ReactNode;
}) {
  return (
    <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap">
      <Input
        placeholder={placeholder}
        aria-label={searchLabel}
        value={search}
        onChange={(e) => onSearch(e.target.value)}
        className="sm:max-w-xs"
      />
      {filters.map((f) => (
        <NativeSelect
          key={f.label}
          aria-label={f.label}
          value={f.value}
          onChange={(e) => f.onChange(e.target.value)}
          className="sm:w-48"
        >
          <option value="all">{f.allLabel}</option>
          {f.options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </NativeSelect>
      ))}
      {children}
    </div>
  );
}
