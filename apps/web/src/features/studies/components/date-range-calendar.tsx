import { DayPicker, type DateRange } from 'react-day-picker';
import 'react-day-picker/style.css';

/** Two months side by side; loaded only when the date filter opens. */
export default function DateRangeCalendar({
  selected,
  onDayClick,
}: {
  selected: DateRange | undefined;
  onDayClick: (day: Date) => void;
}) {
  return (
    <DayPicker
      mode="range"
      numberOfMonths={2}
      selected={selected}
      defaultMonth={selected?.from}
      onSelect={(_range, day) => onDayClick(day)}
      captionLayout="dropdown"
      startMonth={new Date(1900, 0)}
      endMonth={new Date(new Date().getFullYear() + 1, 11)}
      className="text-sm [--rdp-accent-color:var(--color-primary)] [--rdp-accent-background-color:var(--color-accent)] [--rdp-day-height:2.25rem] [--rdp-day-width:2.25rem] [--rdp-day_button-height:2.1rem] [--rdp-day_button-width:2.1rem]"
    />
  );
}
