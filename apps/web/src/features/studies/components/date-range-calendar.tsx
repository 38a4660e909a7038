import { DayPicker, type DateRange, type Modifiers } from 'react-day-picker';
import 'react-day-picker/style.css';

// Made once: toLocaleDateString makes a formatter on every call, twice for each of the ~70 days.
const MONTH_YEAR = new Intl.DateTimeFormat('en-US', { month: 'long', year: 'numeric' });
const WEEKDAY = new Intl.DateTimeFormat('en-US', { weekday: 'long' });

/**
 * A day button's name starts with the number it shows ('1 July 2004, Thursday'), so speech input
 * users can say what they see.
 */
function labelDayButton(date: Date, modifiers: Modifiers): string {
  const monthYear = MONTH_YEAR.format(date);
  const weekday = WEEKDAY.format(date);
  let label = `${date.getDate()} ${monthYear}, ${weekday}`;
  if (modifiers.today) label += ', today';
  if (modifiers.selected) label += ', selected';
  return label;
}

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
      labels={{ labelDayButton }}
      startMonth={new Date(1900, 0)}
      endMonth={new Date(new Date().getFullYear() + 1, 11)}
      className="text-sm [--rdp-accent-color:var(--color-primary)] [--rdp-accent-background-color:var(--color-accent)] [--rdp-day-height:2.25rem] [--rdp-day-width:2.25rem] [--rdp-day_button-height:2.1rem] [--rdp-day_button-width:2.1rem]"
    />
  );
}
