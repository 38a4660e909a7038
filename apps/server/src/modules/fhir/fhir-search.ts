import { AppError } from '../../http/app-error';

/**
 * FHIR search parameters as /fhir/R4 reads them (https://hl7.org/fhir/R4/search.html): repeated
 * parameters are AND-ed, comma-separated values OR-ed; `date` values take the prefixes eq, ne, gt,
 * lt, ge, le, sa, eb and ap; `token` values are `code`, `system|code` or `|code`; references are
 * `id`, `Type/id` or an absolute URL ending in `Type/id`.
 */

export type SearchQuery = Record<string, string | string[] | undefined>;

export interface ParsedSearch {
  /** Each supported parameter given: one entry per occurrence (AND), each a list of alternatives (OR). */
  params: Map<string, string[][]>;
  /** Page size (`_count`) and start (`_offset`). */
  count: number;
  offset: number;
  /** The parameters applied, in order, for the Bundle's `self` link (FHIR: ignored ones are left out). */
  applied: Array<[string, string]>;
}

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 500;
/** Parameters that say how to answer, not what to find; never an error, never in `self`. */
const FORMAT_PARAMS = new Set(['_format', '_pretty']);

function nonNegativeInt(name: string, v: string, max: number): number {
  if (!/^\d{1,7}$/.test(v)) throw new AppError('BAD_REQUEST', `${name} must be a non-negative integer`);
  return Math.min(Number(v), max);
}

/**
 * Reads a query against the parameters a resource type supports. Unknown parameters are ignored
 * (left out of `applied`) unless the client asked `Prefer: handling=strict`; a modifier on a known
 * parameter (`patient:missing`) is refused, since ignoring it would widen the answer.
 */
export function parseSearch(
  query: SearchQuery,
  supported: ReadonlySet<string>,
  strict: boolean,
): ParsedSearch {
  const params = new Map<string, string[][]>();
  const applied: Array<[string, string]> = [];
  let count = DEFAULT_PAGE;
  let offset = 0;
  for (const [name, raw] of Object.entries(query)) {
    const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    if (FORMAT_PARAMS.has(name)) continue;
    if (name === '_count' || name === '_offset') {
      const v = values.at(-1) ?? '';
      if (name === '_count') count = nonNegativeInt(name, v, MAX_PAGE);
      else offset = nonNegativeInt(name, v, Number.MAX_SAFE_INTEGER);
      continue;
    }
    const base = name.split(':')[0]!;
    if (!supported.has(base) || base !== name) {
      if (supported.has(base))
        throw new AppError('BAD_REQUEST', `The modifier of search parameter ${name} is not supported`);
      if (strict) throw new AppError('BAD_REQUEST', `Search parameter ${name} is not supported`);
      continue;
    }
    for (const v of values) {
      const alternatives = v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      if (!alternatives.length) throw new AppError('BAD_REQUEST', `Search parameter ${name} has no value`);
      const list = params.get(name) ?? [];
      list.push(alternatives);
      params.set(name, list);
      applied.push([name, v]);
    }
  }
  return { params, count, offset, applied };
}

/** Every occurrence matches (AND) at least one of its alternatives (OR); true when the parameter is absent. */
export function allOf(
  parsed: ParsedSearch,
  name: string,
  matches: (alternative: string) => boolean,
): boolean {
  return (parsed.params.get(name) ?? []).every((alternatives) => alternatives.some(matches));
}

/** A half-open interval of instants, in milliseconds: [start, end). */
export interface Range {
  start: number;
  end: number;
}

const PREFIXES = ['eq', 'ne', 'gt', 'lt', 'ge', 'le', 'sa', 'eb', 'ap'] as const;
export type DatePrefix = (typeof PREFIXES)[number];

const DATE =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/**
 * A FHIR date or dateTime as the range it stands for: `2024` is that whole year, `2024-03-05`
 * that day, `2024-03-05T10:00Z` that minute. Without a time zone, UTC.
 */
export function dateRange(value: string): Range | null {
  // A `+` of a time zone that was not percent-encoded arrives as a space.
  const m = DATE.exec(value.replace(/ (\d{2}:\d{2})$/, '+$1'));
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, tz] = m;
  const year = Number(y);
  const month = mo ? Number(mo) - 1 : 0;
  const day = d ? Number(d) : 1;
  const hour = h ? Number(h) : 0;
  const minute = mi ? Number(mi) : 0;
  const second = s ? Number(s) : 0;
  const ms = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
  if (month > 11 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  let start = Date.UTC(year, month, day, hour, minute, second, ms);
  if (new Date(start).getUTCDate() !== day) return null;
  if (tz && tz !== 'Z') {
    const sign = tz.startsWith('-') ? -1 : 1;
    start -= sign * (Number(tz.slice(1, 3)) * 60 + Number(tz.slice(4, 6))) * 60_000;
  }
  const end = !mo
    ? Date.UTC(year + 1, 0, 1)
    : !d
      ? Date.UTC(year, month + 1, 1)
      : !h
        ? start + 86_400_000
        : !s
          ? start + 60_000
          : !frac
            ? start + 1000
            : start + 1;
  return { start, end };
}

/** A `date` search value: its prefix (default eq) and range; a 400 when it is not a date. */
export function parseDateSearch(value: string): { prefix: DatePrefix; range: Range } {
  const prefix = (PREFIXES as readonly string[]).includes(value.slice(0, 2))
    ? (value.slice(0, 2) as DatePrefix)
    : 'eq';
  const range = dateRange(prefix === 'eq' && !value.startsWith('eq') ? value : value.slice(2));
  if (!range) throw new AppError('BAD_REQUEST', `Not a FHIR date: ${value.slice(0, 40)}`);
  return { prefix, range };
}

/** Whether a resource's date range matches a search value (FHIR R4 search, 3.1.1.5.6 prefixes). */
export function dateMatches(prefix: DatePrefix, search: Range, target: Range, now: number): boolean {
  const within = target.start >= search.start && target.end <= search.end;
  switch (prefix) {
    case 'eq':
      return within;
    case 'ne':
      return !within;
    case 'gt':
      return target.end > search.end;
    case 'lt':
      return target.start < search.start;
    case 'ge':
      return target.end > search.end || within;
    case 'le':
      return target.start < search.start || within;
    case 'sa':
      return target.start >= search.end;
    case 'eb':
      return target.end <= search.start;
    case 'ap': {
      // Approximately: within 10% of the distance between the value and now, at least a day.
      const slack = Math.max(Math.abs(now - search.start) * 0.1, 86_400_000);
      return target.start < search.end + slack && target.end > search.start - slack;
    }
  }
}

/** A token search value: `code` (any system), `system|code`, or `|code` (no system: `system` null). */
export function parseToken(value: string): { system: string | null | undefined; code: string } {
  const bar = value.indexOf('|');
  if (bar < 0) return { system: undefined, code: value };
  return { system: bar === 0 ? null : value.slice(0, bar), code: value.slice(bar + 1) };
}

/** The id a reference search value names for `type` (`id`, `Type/id`, `…/Type/id`), or null for another type. */
export function referenceId(value: string, type: string): string | null {
  const parts = value.split('/');
  if (parts.length === 1) return value;
  const [t, id] = parts.slice(-2);
  return t === type && id ? id : null;
}
