/**
 * Writes a DICOM data set element by element (PS3.5 §7), for the de-identification engine: values
 * are given as bytes already encoded for the data set, so text the engine keeps is copied byte for
 * byte in its own character set. Sequences and their items are written with undefined lengths
 * (§7.5.2), which every transfer syntax allows and which spares recomputing nested lengths.
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

class Chunks {
  parts: Uint8Array[] = [];
  size = 0;
  push(b: Uint8Array) {
    this.parts.push(b);
    this.size += b.length;
  }
}

function tagBytes(tag: number, le: boolean): Buffer {
  const b = Buffer.alloc(4);
  if (le) {
    b.writeUInt16LE(tag >>> 16, 0);
    b.writeUInt16LE(tag & 0xffff, 2);
  } else {
    b.writeUInt16BE(tag >>> 16, 0);
    b.writeUInt16BE(tag & 0xffff, 2);
  }
  return b;
}

function header(tag: number, vr: string, length: number, s: Syntax): Buffer {
  const t = tagBytes(tag, s.littleEndian);
  if (!s.explicit) {
    const b = Buffer.alloc(8);
    t.copy(b, 0);
    if (s.littleEndian) b.writeUInt32LE(length >>> 0, 4);
    else b.writeUInt32BE(length >>> 0, 4);
    return b;
  }
  if (LONG_VRS.has(vr)) {
    const b = Buffer.alloc(12);
    t.copy(b, 0);
    b.write(vr, 4, 'latin1');
    if (s.littleEndian) b.writeUInt32LE(length >>> 0, 8);
    else b.writeUInt32BE(length >>> 0, 8);
    return b;
  }
  const b = Buffer.alloc(8);
  t.copy(b, 0);
  b.write(vr, 4, 'latin1');
  if (s.littleEndian) b.writeUInt16LE(length, 6);
  else b.writeUInt16BE(length, 6);
  return b;
}

function writeElements(elements: OutElement[], s: Syntax, out: Chunks) {
  const sorted = [...elements].sort((a, b) => (a.tag >>> 0) - (b.tag >>> 0));
  for (const el of sorted) {
    if (el.kind === 'value') {
      let vr = el.vr;
      // A value too long for a 2-byte length (from an implicit file, say) can only be UN.
      if (s.explicit && !LONG_VRS.has(vr) && el.value.length > 0xffff) vr = 'UN';
      out.push(header(el.tag, vr, el.value.length, s));
      out.push(el.value);
    } else if (el.kind === 'sequence') {
      out.push(header(el.tag, 'SQ', UNDEFINED, s));
      for (const item of el.items) {
        out.push(tagBytesWithLength(0xfffee000, UNDEFINED, s));
        writeElements(item, s, out);
        out.push(tagBytesWithLength(0xfffee00d, 0, s));
      }
      out.push(tagBytesWithLength(0xfffee0dd, 0, s));
    } else {
      out.push(header(el.tag, el.vr, UNDEFINED, s));
      out.push(el.body);
    }
  }
}

function tagBytesWithLength(tag: number, length: number, s: Syntax): Buffer {
  const b = Buffer.alloc(8);
  tagBytes(tag, s.littleEndian).copy(b, 0);
  if (s.littleEndian) b.writeUInt32LE(length >>> 0, 4);
  else b.writeUInt32BE(length >>> 0, 4);
  return b;
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

/** A Part 10 file: preamble, `DICM`, the file meta group (always explicit little endian), the data set. */
export function writePart10(opts: {
  sopClassUid: string;
  sopInstanceUid: string;
  transferSyntaxUid: string;
  implementationClassUid: string;
  implementationVersionName: string;
  dataSet: OutElement[];
  syntax: Syntax;
}): Buffer {
  const metaSyntax: Syntax = { explicit: true, littleEndian: true };
  const metaElements: OutElement[] = [
    { tag: 0x00020001, vr: 'OB', kind: 'value', value: Uint8Array.from([0, 1]) },
    { tag: 0x00020002, vr: 'UI', kind: 'value', value: asciiValue('UI', opts.sopClassUid) },
    { tag: 0x00020003, vr: 'UI', kind: 'value', value: asciiValue('UI', opts.sopInstanceUid) },
    { tag: 0x00020010, vr: 'UI', kind: 'value', value: asciiValue('UI', opts.transferSyntaxUid) },
    { tag: 0x00020012, vr: 'UI', kind: 'value', value: asciiValue('UI', opts.implementationClassUid) },
    { tag: 0x00020013, vr: 'SH', kind: 'value', value: asciiValue('SH', opts.implementationVersionName) },
  ];
  const meta = new Chunks();
  writeElements(metaElements, metaSyntax, meta);
  const groupLength = Buffer.alloc(4);
  groupLength.writeUInt32LE(meta.size, 0);
  const out = new Chunks();
  out.push(Buffer.alloc(128));
  out.push(Buffer.from('DICM', 'latin1'));
  writeElements([{ tag: 0x00020000, vr: 'UL', kind: 'value', value: groupLength }], metaSyntax, out);
  for (const p of meta.parts) out.push(p);
  writeElements(opts.dataSet, opts.syntax, out);
  return Buffer.concat(out.parts, out.size);
}
