import type { DataSet } from 'dicom-parser';
import { characterSet, type CharacterSet } from './charset';

/** The bytes of a value, or null when the element is absent, empty or of undefined length. */
export function rawValue(ds: DataSet, tag: string): Uint8Array | null {
  const el = ds.elements[tag];
  if (!el || el.length <= 0 || el.length === 0xffffffff) return null;
  return ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length);
}

/** The decoder of the data set's text values, from its Specific Character Set (0008,0005). */
export function dataSetCharacterSet(ds: DataSet): CharacterSet {
  return characterSet(ascii(ds, 'x00080005'));
}

/** Values of VR that are always ASCII (UI, DA, TM, CS, IS, AS), padding trimmed. */
export function ascii(ds: DataSet, tag: string): string | undefined {
  const b = rawValue(ds, tag);
  if (!b) return undefined;
  // Latin-1 maps each byte to the code point of the same number, as these values need.
  const s = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
  return s.replace(/[\0\s]+$/, '').replace(/^\s+/, '');
}

/** A UI value without padding, or null when there is none. */
export function uid(ds: DataSet, tag: string): string | null {
  const v = ascii(ds, tag)?.replace(/\0/g, '').trim();
  return v ? v : null;
}

/** First value of a code string (CS, AS, TM…), trimmed; null when empty. */
export function firstCode(v: string | undefined): string | null {
  const t = v?.split('\\')[0]?.trim();
  return t ? t : null;
}

/** First value of a text value (LO, SH, PN…), decoded in the data set's character set. */
export function text(ds: DataSet, tag: string, cs: CharacterSet): string | null {
  const b = rawValue(ds, tag);
  if (!b) return null;
  const v = cs.decode(b).replace(/\0/g, '').split('\\')[0]?.trim();
  return v ? v : null;
}

/** First value of a PN, with empty trailing component groups (`A^B=`) dropped. */
export function personName(ds: DataSet, tag: string, cs: CharacterSet): string | null {
  const v = text(ds, tag, cs);
  if (!v) return null;
  const trimmed = v.replace(/[=\s]+$/, '');
  return trimmed ? trimmed : null;
}

/** A DA value (`YYYYMMDD`, or the old `YYYY.MM.DD`) as `YYYY-MM-DD`; null when it is no real date. */
export function dicomDate(v: string | undefined): string | null {
  const m = /^(\d{4})\.?(\d{2})\.?(\d{2})/.exec(v ?? '');
  if (!m) return null;
  const [, y, mo, d] = m;
  const date = new Date(`${y}-${mo}-${d}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== `${y}-${mo}-${d}`) return null;
  return `${y}-${mo}-${d}`;
}

/** First value of an IS as a 32-bit integer; null when absent or out of range. */
export function integer(v: string | undefined): number | null {
  const t = v?.split('\\')[0]?.trim();
  if (!t || !/^[+-]?\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) && Math.abs(n) <= 2_147_483_647 ? n : null;
}

/** Number of Frames (0028,0008); 1 when absent or not a positive number. */
export function numberOfFrames(ds: DataSet): number {
  const frames = Number.parseInt(ds.string('x00280008') ?? '1', 10);
  return Number.isFinite(frames) && frames > 0 ? frames : 1;
}

/** One value of a multi-valued string as DICOM JSON carries it: UI without padding. */
export const trimUidValue = (v: string) => v.replace(/[\0\s]+$/g, '').trim();
/** One value of a string VR other than UI and the single-valued texts: trailing NULs and spaces dropped. */
export const trimStringValue = (v: string) => v.replace(/[\0]+$/, '').trim();
/** A single-valued text (LT, ST, UT, UR): only trailing NULs and spaces dropped, leading spaces kept. */
export const trimTextValue = (v: string) => v.replace(/[\0 ]+$/, '');
