const UNIT_MINUTES: Record<string, number> = {
  second: 1 / 60,
  minute: 1,
  min: 1,
  hour: 60,
  hr: 60,
  h: 60,
  day: 24 * 60,
  d: 24 * 60,
  business_day: 24 * 60,
  week: 7 * 24 * 60,
  month: 30 * 24 * 60,
};

/**
 * A turnaround such as '5-10 minutes', '24-48 hours', '2-3 days' or '1 week' in minutes, so
 * durations sort by length and not by their text: the midpoint of a range, the value itself
 * otherwise. Text it cannot read sorts last (Infinity).
 */
export function turnaroundMinutes(text: string): number {
  const match = /(\d+(?:\.\d+)?)\s*(?:(?:-|–|to)\s*(\d+(?:\.\d+)?))?\s*(business\s+days?|[a-z]+)/i.exec(text);
  if (!match) return Infinity;
  const unit = match[3]!.toLowerCase().replace(/\s+/, '_').replace(/s$/, '');
  const factor = UNIT_MINUTES[unit];
  if (factor === undefined) return Infinity;
  const low = Number(match[1]);
  const high = match[2] === undefined ? low : Number(match[2]);
  return ((low + high) / 2) * factor;
}

/** Orders turnarounds by duration (shortest first); unreadable ones last, by their text. */
export function compareTurnaround(a: string, b: string): number {
  const x = turnaroundMinutes(a);
  const y = turnaroundMinutes(b);
  if (x === y) return a.localeCompare(b);
  if (x === Infinity) return 1;
  if (y === Infinity) return -1;
  return x - y;
}
