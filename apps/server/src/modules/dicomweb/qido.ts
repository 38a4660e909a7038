import dcmjs from 'dcmjs';
import { AppError } from '../../http/app-error';
import { isUid } from './http-media';
import { dictionaryVr } from '../../dicom/data-set';
import type { DicomJson, DicomJsonValue } from './part10';

/** A parsed QIDO-RS query: attribute filters, extra fields to return, paging. */
export interface QidoQuery {
  filters: Array<{ tag: string; value: string }>;
  includeFields: Set<string>;
  includeAll: boolean;
  fuzzy: boolean;
  limit: number | null;
  offset: number;
  /** Tags asked for matching that we cannot match on (answered with a Warning header). */
  unsupported: string[];
}

const nameMap = dcmjs.data.DicomMetaDictionary.nameMap;
const MAX_LIMIT = 10_000;

function bad(message: string): AppError {
  return new AppError('BAD_REQUEST', message);
}

/** `PatientName` or `00100010` → `00100010`; anything else is a 400. */
export function toTag(key: string): string {
  if (/^[0-9A-Fa-f]{8}$/.test(key)) return key.toUpperCase();
  // Own entries only: `toString`, `constructor` and the like are not attribute names.
  const entry = Object.hasOwn(nameMap, key) ? nameMap[key] : undefined;
  if (!entry) throw bad(`Unknown attribute "${key.slice(0, 64)}"`);
  return entry.tag.replace(/[(),]/g, '').toUpperCase();
}

/** Parses the query string of a QIDO-RS request (repeated and comma-separated `includefield` both count). */
export function parseQidoQuery(
  query: Record<string, string | string[] | undefined>,
  matchable: Set<string>,
): QidoQuery {
  const q: QidoQuery = {
    filters: [],
    includeFields: new Set(),
    includeAll: false,
    fuzzy: false,
    limit: null,
    offset: 0,
    unsupported: [],
  };
  for (const [rawKey, rawValue] of Object.entries(query)) {
    const values = Array.isArray(rawValue) ? rawValue : [rawValue ?? ''];
    const key = rawKey.toLowerCase();
    if (key === 'includefield') {
      for (const v of values.flatMap((x) => x.split(','))) {
        const field = v.trim();
        if (field === '') continue;
        if (field === 'all') q.includeAll = true;
        else q.includeFields.add(toTag(field));
      }
      continue;
    }
    if (key === 'limit' || key === 'offset') {
      const v = values[values.length - 1]!;
      if (!/^\d{1,9}$/.test(v)) throw bad(`${key} must be a non-negative integer`);
      if (key === 'limit') q.limit = Math.min(Number(v), MAX_LIMIT);
      else q.offset = Number(v);
      continue;
    }
    if (key === 'fuzzymatching') {
      const v = values[values.length - 1]!.toLowerCase();
      if (v !== 'true' && v !== 'false') throw bad('fuzzymatching must be true or false');
      q.fuzzy = v === 'true';
      continue;
    }
    // Cache-busting and viewer bookkeeping parameters some clients add.
    if (key === '_' || key === 'requesttype') continue;
    // Sequence matching (a.b) is not offered; the attribute is still checked for being a real one.
    const tag = toTag(rawKey.split('.')[0]!);
    const value = values[values.length - 1]!;
    validateValue(tag, value);
    if (!matchable.has(tag) || rawKey.includes('.')) {
      q.unsupported.push(tag);
      continue;
    }
    q.filters.push({ tag, value });
  }
  return q;
}

function validateValue(tag: string, value: string): void {
  const vr = dictionaryVr(tag);
  if (vr === 'UI' && value !== '') {
    for (const uid of value.split(/[\\,]/)) if (!isUid(uid.trim())) throw bad(`Malformed UID in ${tag}`);
  }
  if ((vr === 'DA' || vr === 'TM' || vr === 'DT') && value !== '') {
    const part =
      vr === 'DA'
        ? /^\d{8}$/
        : vr === 'TM'
          ? /^\d{2}(\d{2}(\d{2}(\.\d{1,6})?)?)?$/
          : /^\d{4,14}(\.\d{1,6})?([+-]\d{4})?$/;
    const [from, to, extra] = value.split('-');
    const ok =
      extra === undefined &&
      [from, to].every((p) => p === undefined || p === '' || part.test(p)) &&
      (from !== '' || (to ?? '') !== '');
    if (!ok) throw bad(`Malformed ${vr === 'DA' ? 'date' : vr === 'TM' ? 'time' : 'date-time'} in ${tag}`);
  }
}

function wildcard(pattern: string, caseInsensitive: boolean): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, caseInsensitive ? 'is' : 's');
}

function scalarStrings(v: DicomJsonValue | undefined): string[] {
  if (!v?.Value) return [];
  return v.Value.map((x) => {
    if (x === null || x === undefined) return '';
    if (typeof x === 'object') {
      const pn = x as { Alphabetic?: string; Ideographic?: string; Phonetic?: string };
      return pn.Alphabetic ?? pn.Ideographic ?? pn.Phonetic ?? '';
    }
    return String(x);
  });
}

/** Whether one result (as DICOM JSON) passes every filter of the query. */
export function matches(attrs: DicomJson, q: QidoQuery): boolean {
  return q.filters.every(({ tag, value }) => {
    if (value === '') return true;
    const attr = attrs[tag];
    const vr = attr?.vr ?? dictionaryVr(tag);
    const actual = scalarStrings(attr);
    if (vr === 'UI') {
      const wanted = new Set(value.split(/[\\,]/).map((s) => s.trim()));
      return actual.some((a) => wanted.has(a));
    }
    if (vr === 'DA' || vr === 'TM' || vr === 'DT') {
      if (actual.length === 0) return false;
      const a = actual[0]!;
      if (!value.includes('-')) return a === value || (vr === 'TM' && a.startsWith(value));
      const [from, to] = value.split('-') as [string, string];
      return (from === '' || a >= from) && (to === '' || a.slice(0, to.length) <= to);
    }
    if (vr === 'PN') {
      if (q.fuzzy) {
        const needle = value.replace(/[*?]/g, '').toLowerCase();
        return actual.some((a) =>
          a
            .toLowerCase()
            .split(/[\^= ]+/)
            .some((part) => part.startsWith(needle)),
        );
      }
      const re = wildcard(value, true);
      return actual.some((a) => re.test(a) || re.test(a.replace(/\^+$/, '')));
    }
    const re = wildcard(value, vr !== 'CS');
    return actual.some((a) => re.test(a));
  });
}

/** Applies filters, paging and field selection to rows already limited to what the caller may see. */
export function answer(
  rows: DicomJson[],
  q: QidoQuery,
  defaults: Set<string>,
  extra: (row: DicomJson) => DicomJson = () => ({}),
): DicomJson[] {
  const matched = rows.filter((r) => matches(r, q));
  const page = matched.slice(q.offset, q.limit === null ? undefined : q.offset + q.limit);
  return page.map((row) => {
    const full = { ...row, ...extra(row) };
    const out: DicomJson = {};
    for (const [tag, v] of Object.entries(full)) {
      if (
        q.includeAll ||
        defaults.has(tag) ||
        q.includeFields.has(tag) ||
        q.filters.some((f) => f.tag === tag)
      )
        out[tag] = v;
    }
    return sortTags(out);
  });
}

export function sortTags(attrs: DicomJson): DicomJson {
  return Object.fromEntries(Object.entries(attrs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
