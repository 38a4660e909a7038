/**
 * Writes a DICOM data set element by element (PS3.5 §7), for the de-identification engine: values
 * are given as bytes already encoded for the data set, so text the engine keeps is copied byte for
 * byte in its own character set. Sequences and their items are written with undefined lengths
 * (§7.5.2), which every transfer syntax allows and which spares recomputing nested lengths.
 *
 * The file comes out as a list of parts, not one buffer: the Pixel Data value is handed on as the
 * very bytes it was given (usually a view into the source file), and everything else is written into
 * one buffer, so the bulk of an image is never copied. See `Part10File`.
 */

/** VRs whose explicit encoding has a 2-byte reserved field and a 4-byte length (PS3.5 Table 7.1-1). */
const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV']);

export interface Syntax {
  explicit: boolean;
  littleEndian: boolean;
}

export type OutElement =
  | { tag: number; vr: string; kind: 'value'; value: Uint8Array }
  | { tag: number; vr: 'SQ'; kind: 'sequence'; items: OutElement[][] }
  /** Encapsulated pixel data: its items and delimiter copied as they are. */
  | { tag: number; vr: string; kind: 'undefined-length'; body: Uint8Array };

const UNDEFINED = 0xffffffff;

/** The Pixel Data tag: at the top level of a data set, its value is passed on without a copy. */
const PIXEL_DATA = 0x7fe00010;

/**
 * The bytes being written: headers and small values go into one buffer (grown as needed), and a value
 * kept as it is (`keep`) ends the current part, becomes a part of its own, and writing goes on after it.
 */
class Output {
  parts: Uint8Array[] = [];
  size = 0;
  private buf: Buffer;
  /** Where the current part starts in `buf`, and where the next byte goes. */
  private start = 0;
  private at = 0;

  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  private room(n: number) {
    if (this.at + n <= this.buf.length) return;
    // Only the current part moves: parts already made keep their view of the old buffer.
    const pending = this.at - this.start;
    const next = Buffer.allocUnsafe(Math.max(2 * this.buf.length, pending + n));
    this.buf.copy(next, 0, this.start, this.at);
    this.buf = next;
    this.start = 0;
    this.at = pending;
  }

  bytes(b: Uint8Array) {
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
    this.size += b.length;
  }

  zeros(n: number) {
    this.room(n);
    this.buf.fill(0, this.at, this.at + n);
    this.at += n;
    this.size += n;
  }

  ascii2(s: string) {
    this.room(2);
    this.buf[this.at] = s.charCodeAt(0);
    this.buf[this.at + 1] = s.charCodeAt(1);
    this.at += 2;
    this.size += 2;
  }

  u16(v: number, le: boolean) {
    this.room(2);
    if (le) this.buf.writeUInt16LE(v, this.at);
    else this.buf.writeUInt16BE(v, this.at);
    this.at += 2;
    this.size += 2;
  }

  u32(v: number, le: boolean) {
    this.room(4);
    if (le) this.buf.writeUInt32LE(v >>> 0, this.at);
    else this.buf.writeUInt32BE(v >>> 0, this.at);
    this.at += 4;
    this.size += 4;
  }

  /**
   * Rewrites 4 bytes written before, at `offset` in the file (a length known only once its value is
   * written); they must be in the current part.
   */
  patchU32LE(offset: number, v: number) {
    const position = this.at - (this.size - offset);
    if (position < this.start) throw new Error('patch outside the current part');
    this.buf.writeUInt32LE(v >>> 0, position);
  }

  /** A value kept as a part of its own, as given: no copy is made of it. */
  keep(b: Uint8Array) {
    if (b.length === 0) return;
    this.flush();
    this.parts.push(b);
    this.size += b.length;
  }

  /** Ends the current part. */
  flush() {
    if (this.at === this.start) return;
    this.parts.push(this.buf.subarray(this.start, this.at));
    this.start = this.at;
  }
}

function tag(out: Output, t: number, le: boolean) {
  out.u16(t >>> 16, le);
  out.u16(t & 0xffff, le);
}

function header(out: Output, t: number, vr: string, length: number, s: Syntax) {
  tag(out, t, s.littleEndian);
  if (!s.explicit) {
    out.u32(length, s.littleEndian);
  } else if (LONG_VRS.has(vr)) {
    out.ascii2(vr);
    out.u16(0, s.littleEndian);
    out.u32(length, s.littleEndian);
  } else {
    out.ascii2(vr);
    out.u16(length, s.littleEndian);
  }
}

/** An item or delimitation tag with its 4-byte length (PS3.5 §7.5), in every syntax. */
function itemTag(out: Output, t: number, length: number, s: Syntax) {
  tag(out, t, s.littleEndian);
  out.u32(length, s.littleEndian);
}

/** `top`: the data set itself, not an item of a sequence (whose pixel data, an icon's, is small). */
function writeElements(elements: OutElement[], s: Syntax, out: Output, top = false) {
  const sorted = [...elements].sort((a, b) => (a.tag >>> 0) - (b.tag >>> 0));
  for (const el of sorted) {
    const bulk = top && el.tag >>> 0 === PIXEL_DATA;
    if (el.kind === 'value') {
      let vr = el.vr;
      // A value too long for a 2-byte length (from an implicit file, say) can only be UN.
      if (s.explicit && !LONG_VRS.has(vr) && el.value.length > 0xffff) vr = 'UN';
      header(out, el.tag, vr, el.value.length, s);
      if (bulk) out.keep(el.value);
      else out.bytes(el.value);
    } else if (el.kind === 'sequence') {
      header(out, el.tag, 'SQ', UNDEFINED, s);
      for (const item of el.items) {
        itemTag(out, 0xfffee000, UNDEFINED, s);
        writeElements(item, s, out);
        itemTag(out, 0xfffee00d, 0, s);
      }
      itemTag(out, 0xfffee0dd, 0, s);
    } else {
      header(out, el.tag, el.vr, UNDEFINED, s);
      if (bulk) out.keep(el.body);
      else out.bytes(el.body);
    }
  }
}

/** A value's bytes padded to even length: UI with NUL, OB/UN with NUL, text with a space (PS3.5 §6.2). */
export function padded(vr: string, bytes: Uint8Array): Uint8Array {
  if (bytes.length % 2 === 0) return bytes;
  const pad = vr === 'UI' || vr === 'OB' || vr === 'UN' ? 0 : 0x20;
  const b = Buffer.alloc(bytes.length + 1, pad);
  b.set(bytes, 0);
  return b;
}

/** An ASCII string value (several values joined by `\`), padded for its VR. */
export function asciiValue(vr: string, value: string): Uint8Array {
  return padded(vr, Buffer.from(value, 'latin1'));
}

/**
 * A written file as its parts, in order. The first part holds every byte before the Pixel Data value
 * (through the Pixel Data element's own tag and length), the next is that value itself, and a last
 * one holds any elements after it; a file without Pixel Data is a single part. The Pixel Data part is
 * the caller's own bytes, not a copy: they must not change while the file is in use.
 */
export interface Part10File {
  parts: Uint8Array[];
  /** Bytes of the whole file. */
  size: number;
}

/** Room for a typical header, so the buffer rarely grows (it doubles when it must). */
const INITIAL_CAPACITY = 16 * 1024;

/** A Part 10 file: preamble, `DICM`, the file meta group (always explicit little endian), the data set. */
export function writePart10(opts: {
  sopClassUid: string;
  sopInstanceUid: string;
  transferSyntaxUid: string;
  implementationClassUid: string;
  implementationVersionName: string;
  dataSet: OutElement[];
  syntax: Syntax;
}): Part10File {
  const metaSyntax: Syntax = { explicit: true, littleEndian: true };
  const metaElements: OutElement[] = [
    { tag: 0x00020001, vr: 'OB', kind: 'value', value: Uint8Array.from([0, 1]) },
    { tag: 0x00020002, vr: 'UI', kind: 'value', value: asciiValue('UI', opts.sopClassUid) },
    { tag: 0x00020003, vr: 'UI', kind: 'value', value: asciiValue('UI', opts.sopInstanceUid) },
    { tag: 0x00020010, vr: 'UI', kind: 'value', value: asciiValue('UI', opts.transferSyntaxUid) },
    { tag: 0x00020012, vr: 'UI', kind: 'value', value: asciiValue('UI', opts.implementationClassUid) },
    { tag: 0x00020013, vr: 'SH', kind: 'value', value: asciiValue('SH', opts.implementationVersionName) },
  ];
  const out = new Output(INITIAL_CAPACITY);
  out.zeros(128);
  out.bytes(Buffer.from('DICM', 'latin1'));
  // (0002,0000) File Meta Information Group Length: the meta group's size, known once it is written.
  header(out, 0x00020000, 'UL', 4, metaSyntax);
  const groupLengthAt = out.size;
  out.u32(0, true);
  const metaStart = out.size;
  writeElements(metaElements, metaSyntax, out);
  out.patchU32LE(groupLengthAt, out.size - metaStart);
  writeElements(opts.dataSet, opts.syntax, out, true);
  out.flush();
  return { parts: out.parts, size: out.size };
}
