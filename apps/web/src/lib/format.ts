import { format, isValid, parseISO } from 'date-fns';

/** The app's date format. */
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

/** Scripts whose names are written family name first without a comma. */
const EAST_ASIAN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** One PN component group: family, given, middle, prefix, suffix (DICOM PS3.5 §6.2). */
function personNameGroup(group: string, commaAllowed: boolean): string {
  const familyFirstWithComma = commaAllowed && !EAST_ASIAN.test(group);
  const [family = '', given = '', middle = '', prefix = '', suffix = ''] = group
    .split('^')
    .map((part) => part.trim());
  const rest = [prefix, given, middle, suffix].filter(Boolean).join(' ');
  if (!family) return rest;
  if (!rest) return family;
  // East Asian names (and ideographic or phonetic groups) are written family name first, no comma.
  return familyFirstWithComma
    ? `${family}, ${rest}`
    : [prefix, family, given, middle, suffix].filter(Boolean).join(' ');
}

/**
 * A DICOM person name (PN) for display: 'DOE^JOHN^A^DR^JR' reads 'DOE, DR JOHN A JR'; an
 * ideographic group follows in brackets ('Yamada, Tarou (山田 太郎)'); a name without carets is
 * shown as it is. Empty string when there is no name.
 */
export function formatPersonName(pn: string | null | undefined): string {
  if (!pn) return '';
  const groups = pn.split('=');
  // A PN has at most three groups; more '=' than that is text that is not a well-formed name.
  const [alphabetic = '', ideographic = '', phonetic = ''] = groups.length > 3 ? [pn] : groups;
  const latin = personNameGroup(alphabetic, true);
  const ideo = personNameGroup(ideographic, false);
  if (latin) return ideo && ideo !== latin ? `${latin} (${ideo})` : latin;
  return ideo || personNameGroup(phonetic, false);
}
