import { format, isValid, parseISO } from 'date-fns';

/** Spec §9 date format. */
export const DATE_FORMAT = 'LLL dd, y';
export const DATE_TIME_FORMAT = 'LLL dd, y HH:mm';

function toDate(value: string | number | Date): Date {
  return typeof value === 'string' ? parseISO(value) : new Date(value);
}

/** 'Jan 05, 2025'; empty string for a missing or unparsable date. */
export function formatDate(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const date = toDate(value);
  return isValid(date) ? format(date, DATE_FORMAT) : '';
}

/** 'Jan 05, 2025 14:03' in the browser's time zone. */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const date = toDate(value);
  return isValid(date) ? format(date, DATE_TIME_FORMAT) : '';
}

/** First word of a display name, or 'User' (spec §2 dashboard greeting fallback). */
export function firstName(name: string | null | undefined): string {
  return name?.trim().split(/\s+/)[0] || 'User';
}

/** Avatar initials: first letters of the first and last words of the name, 'U' if none (spec §2). */
export function initials(name: string | null | undefined): string {
  const words = name?.trim().split(/\s+/).filter(Boolean) ?? [];
  if (words.length === 0) return 'U';
  const first = words[0]!.charAt(0);
  const last = words.length > 1 ? words[words.length - 1]!.charAt(0) : '';
  return (first + last).toUpperCase();
}
