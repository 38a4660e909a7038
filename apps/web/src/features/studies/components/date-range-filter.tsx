import { CalendarRange, X } from 'lucide-react';
import { lazy, Suspense, useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { DateRange } from 'react-day-picker';
import { Button } from '@/components/ui/button';
import { Popover, PopoverContent, PopoverTrigger } from '@/components/ui/popover';
import { Spinner } from '@/components/ui/spinner';
import { formatDate } from '@/lib/format';

const DateRangeCalendar = lazy(() => import('./date-range-calendar'));

export interface DateFilter {
  from?: Date;
  to?: Date;
}

function label(range: DateFilter): string {
  if (range.from && range.to) return `${formatDate(range.from)} - ${formatDate(range.to)}`;
  return 'Study date range';
}

/** The Studies list's date filter: a two-month range picker that closes once the end date is chosen. */
export function DateRangeFilter({
  value,
  onChange,
}: {
  value: DateFilter;
  onChange: (next: DateFilter) => void;
}) {
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<DateRange | undefined>(undefined);
  const active = Boolean(value.from && value.to);
  const latestOnChange = useRef(onChange);
  useLayoutEffect(() => {
    latestOnChange.current = onChange;
  });

  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (next) setDraft(active ? { from: value.from, to: value.to } : undefined);
  };

  // The first click starts a new range; the second ends it, applies it and closes. The draft is
  // left as it is then (opening sets it again): the closing calendar is not drawn once more, which
  // took as long as filtering and drawing the list the range applies to.
  const onDayClick = useCallback(
    (day: Date) => {
      if (!draft?.from || draft.to) {
        setDraft({ from: day, to: undefined });
        return;
      }
      const [from, to] = day < draft.from ? [day, draft.from] : [draft.from, day];
      latestOnChange.current({ from, to });
      setOpen(false);
    },
    [draft],
  );
  const calendar = useMemo(
    () => <DateRangeCalendar selected={draft} onDayClick={onDayClick} />,
    [draft, onDayClick],
  );

  return (
    <div className="flex items-center gap-1">
      <Popover open={open} onOpenChange={onOpenChange}>
        <PopoverTrigger asChild>
          {/* Its name is the text it shows (a chosen range is announced as the study date's). */}
          <Button variant="outline" className="w-full justify-start font-normal sm:w-auto">
            <CalendarRange aria-hidden="true" />
            {active && <span className="sr-only">Study date: </span>}
            <span className={active ? '' : 'text-muted-foreground'}>{label(value)}</span>
          </Button>
        </PopoverTrigger>
        {/* On a phone the two months stack: keep the picker inside the screen and let it scroll. */}
        <PopoverContent
          collisionPadding={8}
          className="max-h-[var(--radix-popover-content-available-height)] w-auto overflow-auto"
        >
          <Suspense
            fallback={
              <div className="flex h-72 w-72 items-center justify-center">
                <Spinner />
              </div>
            }
          >
            {calendar}
          </Suspense>
        </PopoverContent>
      </Popover>
      {active && (
        <Button variant="ghost" size="icon" aria-label="Clear study date range" onClick={() => onChange({})}>
          <X aria-hidden="true" />
        </Button>
      )}
    </div>
  );
}
