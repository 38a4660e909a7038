import { createHmac } from 'node:crypto';
import { PROFILE_EDITION, PROFILE_ROWS } from './profile-table';
import type { ProfileAction, ProfileOption, ProfileRow } from './profile-types';

export { PROFILE_EDITION };

/**
 * The options of PS3.15 Annex E this engine applies on top of the Basic Profile, in the order their
 * column wins when an attribute has more than one (the two never disagree in Table E.1-1).
 */
export const APPLIED_OPTIONS: readonly ProfileOption[] = [
  'retainLongitudinalModifiedDates',
  'cleanDescriptors',
];

/** What the engine does to one attribute, the table's choices (X/Z, X/D…) settled. */
export type ConcreteAction =
  | 'remove'
  | 'empty'
  | 'dummy'
  | 'keep'
  | 'clean'
  | 'uid'
  /** A sequence kept, the profile applied to its items (`U*`, or D/K/C on a sequence). */
  | 'recurse';

const exact = new Map<string, ProfileRow>();
const masked: Array<{ re: RegExp; row: ProfileRow }> = [];
for (const row of PROFILE_ROWS) {
  if (row.tag === 'private') continue;
  if (row.tag.includes('x')) masked.push({ re: new RegExp(`^${row.tag.replace(/x/g, '[0-9A-F]')}$`), row });
  else exact.set(row.tag, row);
}

/** Tags looked up before, with their row or null: every instance of a study has much the same tags. */
const seen = new Map<string, ProfileRow | null>();
const SEEN_MAX = 8192;

/** The row of Table E.1-1 for a tag (`GGGGEEEE`, upper-case), or undefined for an attribute it does not list. */
export function profileRow(tag: string): ProfileRow | undefined {
  const known = exact.get(tag) ?? seen.get(tag);
  if (known !== undefined) return known ?? undefined;
  const row = masked.find((m) => m.re.test(tag))?.row ?? null;
  if (seen.size < SEEN_MAX) seen.set(tag, row);
  return row ?? undefined;
}

/** The table's action for a row under the options applied: an option's column overrides the Basic Profile. */
export function tableAction(row: ProfileRow): ProfileAction {
  for (const option of APPLIED_OPTIONS) {
    const a = row.options[option];
    if (a) return a;
  }
  return row.basic;
}

/**
 * Settles a table action for an attribute of a given VR. The combinations name what an IOD's Type
 * requires (E.1.1): the engine takes the choice that keeps any IOD conformant, so X/Z is Z (a Type 2
 * attribute may be empty, a Type 3 one too), X/D, Z/D and X/Z/D are D (a Type 1 attribute keeps a
 * value), and X/Z/U* keeps the sequence and replaces the UIDs inside it (they have rows of their own).
 */
export function concreteAction(action: ProfileAction, vr: string): ConcreteAction {
  const sequence = vr === 'SQ';
  switch (action) {
    case 'X':
      return 'remove';
    case 'Z':
    case 'X/Z':
      return 'empty';
    case 'D':
    case 'Z/D':
    case 'X/D':
    case 'X/Z/D':
      return sequence ? 'recurse' : vr === 'UI' ? 'uid' : 'dummy';
    case 'X/Z/U*':
      return sequence ? 'recurse' : vr === 'UI' ? 'uid' : 'empty';
    case 'K':
      return sequence ? 'recurse' : 'keep';
    case 'C':
      return sequence ? 'recurse' : 'clean';
    case 'U':
      return sequence ? 'recurse' : 'uid';
  }
}

/** CID 7050 (PS3.16), De-identification Method: the profile and the options applied, for (0012,0064). */
export const METHOD_CODES = [
  { value: '113100', meaning: 'Basic Application Confidentiality Profile' },
  { value: '113107', meaning: 'Retain Longitudinal Temporal Information Modified Dates Option' },
  { value: '113105', meaning: 'Clean Descriptors Option' },
] as const;

/** (0012,0063) De-identification Method: each value at most 64 characters (LO). */
export const METHOD_DESCRIPTION = [
  `${PROFILE_EDITION} Annex E Basic Profile`,
  'Retain Longitudinal Temporal Information Modified Dates',
  'Clean Descriptors',
] as const;

/**
 * Days every date of one patient's data moves by: derived from a server secret and the owner's id,
 * so every copy of the same patient's studies shifts alike (intervals between studies survive) and
 * nobody without the secret can undo it. Always between 1 and 10 years back, never zero.
 */
export function dateShiftDays(secret: string, ownerId: string): number {
  const h = createHmac('sha256', secret).update(`deidentify:date-shift:${ownerId}`).digest();
  const span = 3653 - 365;
  return -(365 + (h.readUInt32BE(0) % (span + 1)));
}

/**
 * What de-identification derives from the server secret, in one place: keys for copies' UID maps
 * (`key(label)`) and a patient's date shift, so a de-identified copy and an export of the same
 * patient shift dates alike.
 */
export function deidentifyKeys(secret: string) {
  const key = (label: string) => createHmac('sha256', secret).update(`deidentify:${label}`).digest('hex');
  return { key, dateShiftFor: (ownerId: string) => dateShiftDays(key('date-shift'), ownerId) };
}

/**
 * UIDs of one copy: each original UID becomes a `2.25.` UID (PS3.5 B.2) derived from the copy's key,
 * so the same original UID gets the same new one everywhere in the copy (references between
 * instances, series and reports still resolve) and a different one in every other copy.
 */
export function createUidMap(copyKey: string) {
  const map = new Map<string, string>();
  return {
    map(original: string): string {
      const uid = original.replace(/[\0\s]+$/g, '').trim();
      if (uid === '') return uid;
      let out = map.get(uid);
      if (!out) {
        const digest = createHmac('sha256', copyKey).update(uid).digest('hex');
        out = `2.25.${BigInt(`0x${digest.slice(0, 32)}`).toString(10)}`;
        map.set(uid, out);
      }
      return out;
    },
    /** Original → replacement, for the copy's record and for tests. */
    entries: () => [...map.entries()],
  };
}
export type UidMap = ReturnType<typeof createUidMap>;
