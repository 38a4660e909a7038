import { EXPERIENCE_BUCKETS } from '@mi/contracts/sharing';
import { Search } from 'lucide-react';
import { Input } from '@/components/ui/input';
import { NativeSelect } from '@/components/ui/native-select';
import { cn } from '@/lib/utils';
import type { ProviderFilter } from '../utils/provider-filter';

const BUCKET_LABEL: Record<(typeof EXPERIENCE_BUCKETS)[number], string> = {
  '0-5': '0-5 years',
  '5-10': '5-10 years',
  '10-15': '10-15 years',
  '15+': '15+ years',
};

/** Search by name or email, and specialty, country and experience filters (page and dialog alike). */
export function ProviderFilterBar({
  filter,
  onChange,
  specialties,
  countries,
  searchLabel,
  placeholder = 'Search by name or email...',
  inDialog = false,
}: {
  filter: ProviderFilter;
  onChange: (next: ProviderFilter) => void;
  specialties: string[];
  countries: string[];
  /** The accessible name of the search box. */
  searchLabel: string;
  placeholder?: string;
  /** In a dialog the bar keeps its two-column layout: a row of four would squeeze the search box. */
  inDialog?: boolean;
}) {
  const wide = !inDialog;
  return (
    <div
      className={cn('grid gap-2 sm:grid-cols-2', wide && 'lg:flex lg:flex-wrap lg:items-center')}
      role="search"
      aria-label={searchLabel}
    >
      <div className={cn('relative min-w-0 sm:col-span-2', wide && 'lg:flex-1')}>
        <Search
          className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground"
          aria-hidden="true"
        />
        <Input
          type="search"
          aria-label={searchLabel}
          placeholder={placeholder}
          value={filter.search}
          onChange={(e) => onChange({ ...filter, search: e.target.value })}
          className="pl-9"
        />
      </div>
      <NativeSelect
        aria-label="Specialty"
        value={filter.specialty}
        onChange={(e) => onChange({ ...filter, specialty: e.target.value })}
        className={cn(wide && 'lg:w-44')}
      >
        <option value="all">All Specialties</option>
        {specialties.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </NativeSelect>
      <NativeSelect
        aria-label="Country"
        value={filter.country}
        onChange={(e) => onChange({ ...filter, country: e.target.value })}
        className={cn(wide && 'lg:w-44')}
      >
        <option value="all">All Countries</option>
        {countries.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </NativeSelect>
      <NativeSelect
        aria-label="Experience"
        value={filter.experience}
        onChange={(e) => onChange({ ...filter, experience: e.target.value })}
        className={cn('sm:col-span-2', wide && 'lg:w-40')}
      >
        <option value="all">Any Experience</option>
        {EXPERIENCE_BUCKETS.map((b) => (
          <option key={b} value={b}>
            {BUCKET_LABEL[b]}
          </option>
        ))}
      </NativeSelect>
    </div>
  );
}
