import { Search } from 'lucide-react';
import { Input } from '@/components/ui/input';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import type { StudyFilter } from '../utils/study-list';
import { DateRangeFilter } from './date-range-filter';

export function SearchInput({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <div className="relative min-w-0 flex-1">
      <Search
        className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground"
        aria-hidden="true"
      />
      <Input
        type="search"
        aria-label="Search studies"
        placeholder="Search studies..."
        value={value}
        onChange={(e) => onChange(e.target.value)}
        className="pl-9"
      />
    </div>
  );
}

/** 'All Types' plus the distinct modalities of the user's studies. */
export function ModalitySelect({
  value,
  modalities,
  onChange,
}: {
  value: string;
  modalities: string[];
  onChange: (value: string) => void;
}) {
  return (
    <Select value={value} onValueChange={onChange}>
      <SelectTrigger aria-label="Modality" className="sm:w-44">
        <SelectValue />
      </SelectTrigger>
      <SelectContent>
        <SelectItem value="all">All Types</SelectItem>
        {modalities.map((m) => (
          <SelectItem key={m} value={m}>
            {m}
          </SelectItem>
        ))}
      </SelectContent>
    </Select>
  );
}

export function StudyFilterBar({
  filter,
  modalities,
  onChange,
}: {
  filter: StudyFilter;
  modalities: string[];
  onChange: (next: StudyFilter) => void;
}) {
  return (
    <div
      className="flex flex-col gap-2 sm:flex-row sm:flex-wrap sm:items-center"
      role="search"
      aria-label="Filter studies"
    >
      <SearchInput value={filter.search} onChange={(search) => onChange({ ...filter, search })} />
      <ModalitySelect
        value={filter.modality}
        modalities={modalities}
        onChange={(modality) => onChange({ ...filter, modality })}
      />
      <DateRangeFilter value={filter.date} onChange={(date) => onChange({ ...filter, date })} />
    </div>
  );
}
