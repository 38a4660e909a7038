import { readFileSync } from 'node:fs';
import path from 'node:path';
import { crc32, deflateRawSync, inflateRawSync, constants as zlibConstants } from 'node:zlib';
import dicomParser from 'dicom-parser';

/**
 * Deterministic damage to real DICOM files: truncations, byte flips, lying element lengths, absurd
 * image geometry, bad transfer syntaxes and UIDs, deflate bombs. Every mutant derives from a seed,
 * so a run that finds a problem can be repeated byte for byte.
 */

/** mulberry32: a small seeded generator (the corpus must not change from run to run). */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** In [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return hi <= lo ? lo : lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }
}

/** A seed for one purpose, derived from the corpus seed and a label (FNV-1a). */
export function subSeed(seed: number, label: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (const c of Buffer.from(label)) h = Math.imul(h ^ c, 0x01000193) >>> 0;
  return h;
}

const IMPLICIT_LE = '1.2.840.10008.1.2';
const EXPLICIT_LE = '1.2.840.10008.1.2.1';
const EXPLICIT_BE = '1.2.840.10008.1.2.2';
const DEFLATED = '1.2.840.10008.1.2.1.99';
/** Explicit VRs whose length takes 4 bytes (after 2 reserved ones). */
const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV']);

/** Where one top-level element sits in the file's bytes. */
export interface ElementAt {
  tag: string;
  group: number;
  headerOffset: number;
  dataOffset: number;
  length: number;
  lengthOffset: number;
  lengthSize: 2 | 4;
  bigEndian: boolean;
  undefinedLength: boolean;
  encapsulated: boolean;
}

/** The top-level elements of a Part 10 file, with their byte positions (meta group only when deflated). */
export class DicomLayout {
  readonly elements: ElementAt[];
  readonly transferSyntax: string;
  readonly metaEnd: number;

  constructor(readonly bytes: Buffer) {
    const ds = dicomParser.parseDicom(bytes);
    this.transferSyntax = (ds.string('x00020010') ?? '').trim();
    const explicit = this.transferSyntax !== IMPLICIT_LE;
    const bigEndian = this.transferSyntax === EXPLICIT_BE;
    const deflated = this.transferSyntax === DEFLATED;
    const out: ElementAt[] = [];
    for (const el of Object.values(ds.elements)) {
      const group = Number.parseInt(el.tag.slice(1, 5), 16);
      const meta = group === 2;
      // Offsets of a deflated data set point into its inflated bytes, not the file's.
      if (deflated && !meta) continue;
      const long = meta || explicit ? LONG_VRS.has(el.vr ?? '') : true;
      const headerSize = (meta || explicit) && long ? 12 : 8;
      out.push({
        tag: el.tag,
        group,
        headerOffset: el.dataOffset - headerSize,
        dataOffset: el.dataOffset,
        length: el.length,
        lengthOffset: el.dataOffset - (long ? 4 : 2),
        lengthSize: long ? 4 : 2,
        bigEndian: !meta && bigEndian,
        undefinedLength: Boolean(el.hadUndefinedLength),
        encapsulated: Boolean(el.encapsulatedPixelData),
      });
    }
    out.sort((a, b) => a.headerOffset - b.headerOffset);
    this.elements = out;
    this.metaEnd = Math.max(132, ...out.filter((e) => e.group === 2).map((e) => e.dataOffset + e.length));
  }

  get(tag: string): ElementAt | undefined {
    return this.elements.find((e) => e.tag === tag);
  }

  /** Elements of the data set (not the meta group). */
  get dataSet(): ElementAt[] {
    return this.elements.filter((e) => e.group !== 2);
  }
}

function writeUint(buf: Buffer, at: number, size: 2 | 4, value: number, bigEndian: boolean): void {
  if (size === 2) {
    if (bigEndian) buf.writeUInt16BE(value & 0xffff, at);
    else buf.writeUInt16LE(value & 0xffff, at);
  } else if (bigEndian) buf.writeUInt32BE(value >>> 0, at);
  else buf.writeUInt32LE(value >>> 0, at);
}

/** A copy whose element declares `length` (0xFFFF is the most a short length field holds). */
export function withLength(bytes: Buffer, el: ElementAt, length: number): Buffer {
  const out = Buffer.from(bytes);
  writeUint(
    out,
    el.lengthOffset,
    el.lengthSize,
    el.lengthSize === 2 ? Math.min(length, 0xffff) : length,
    el.bigEndian,
  );
  return out;
}

/** A copy whose US element holds `value`. */
export function withUS(bytes: Buffer, el: ElementAt, value: number): Buffer {
  const out = Buffer.from(bytes);
  if (el.length >= 2) writeUint(out, el.dataOffset, 2, value, el.bigEndian);
  return out;
}

/**
 * A copy with the element's value replaced (padded to an even length with `pad`) and its length
 * field rewritten; a meta element also corrects the meta group length. Top-level elements only.
 */
export function withValue(layout: DicomLayout, el: ElementAt, value: Buffer, pad = 0x20): Buffer {
  const padded = value.length % 2 ? Buffer.concat([value, Buffer.from([pad])]) : value;
  const bytes = layout.bytes;
  const out = Buffer.concat([
    bytes.subarray(0, el.dataOffset),
    padded,
    bytes.subarray(el.dataOffset + (el.undefinedLength ? 0 : el.length)),
  ]);
  writeUint(out, el.lengthOffset, el.lengthSize, padded.length, el.bigEndian);
  const groupLength = layout.get('x00020000');
  if (el.group === 2 && groupLength)
    out.writeUInt32LE(
      out.readUInt32LE(groupLength.dataOffset) + padded.length - el.length,
      groupLength.dataOffset,
    );
  return out;
}

/** Gives a file its own Study, Series and SOP Instance UIDs, so each mutant is a study of its own. */
export function withUids(bytes: Buffer, uids: { study: string; series: string; sop: string }): Buffer {
  const targets: Array<[string, string]> = [
    ['x0020000d', uids.study],
    ['x0020000e', uids.series],
    ['x00080018', uids.sop],
    ['x00020003', uids.sop],
  ];
  let out = bytes;
  // One element at a time, the file read afresh after each change (a change moves what follows it).
  for (;;) {
    const layout = new DicomLayout(out);
    const todo = targets
      .map(([tag, value]) => ({ el: layout.get(tag), value }))
      .filter((t): t is { el: ElementAt; value: string } => {
        if (!t.el) return false;
        return (
          out.toString('latin1', t.el.dataOffset, t.el.dataOffset + t.el.length).replace(/[\0 ]+$/, '') !==
          t.value
        );
      })
      .sort((a, b) => b.el.dataOffset - a.el.dataOffset);
    if (todo.length === 0) return out;
    out = withValue(layout, todo[0]!.el, Buffer.from(todo[0]!.value, 'latin1'), 0);
  }
}

/**
 * Raw deflate of `mib` MiB of zeros, compressing only 1 MiB: its sync-flushed block repeated, then
 * an empty final block (each block only refers back to zeros, so the copies stay valid).
 */
export function zerosDeflated(mib: number): Buffer {
  const block = deflateRawSync(Buffer.alloc(1024 * 1024), {
    level: 9,
    finishFlush: zlibConstants.Z_SYNC_FLUSH,
  });
  const end = deflateRawSync(Buffer.alloc(0));
  return Buffer.concat([...Array.from({ length: mib }, () => block), end]);
}

export interface FileMutant {
  /** Position in the corpus. */
  id: number;
  category: string;
  /** What was done, e.g. `CT_small.dcm: truncated at 131 (inside DICM)`. */
  label: string;
  data: Buffer;
}

/** Fixtures mutated, with what they exercise. */
export const MUTATED_FIXTURES = [
  'CT_small.dcm', // explicit VR little endian, 16-bit
  'MR_small.dcm', // explicit VR little endian
  'MR_small_implicit.dcm', // implicit VR
  'MR_small_bigendian.dcm', // explicit VR big endian
  'SC_ybr_full_422_uncompressed.dcm', // YBR 4:2:2
  'rtdose.dcm', // multi-frame native
  'JPEG2000.dcm',
  'MR_small_RLE.dcm',
  'SC_rgb_rle_2frame.dcm', // multi-frame RLE colour
  'JPEG-lossy.dcm',
  'MR_small_jpeg_ls_lossless.dcm',
  'SC_rgb_jpeg_dcmtk.dcm',
  'reportsi.dcm', // structured report, no image
  'image_dfl.dcm', // deflated data set
  'dicomdirtests/DICOMDIR',
] as const;

/** A value for each geometry field, from absurd to merely wrong. */
const GEOMETRY: Array<{ label: string; apply: (l: DicomLayout) => Buffer | null }> = [
  { label: 'Rows 65535', apply: (l) => us(l, { x00280010: 65535 }) },
  { label: 'Columns 65535', apply: (l) => us(l, { x00280011: 65535 }) },
  { label: 'Rows and Columns 65535', apply: (l) => us(l, { x00280010: 65535, x00280011: 65535 }) },
  { label: 'Rows 0', apply: (l) => us(l, { x00280010: 0 }) },
  { label: 'Rows and Columns 8192', apply: (l) => us(l, { x00280010: 8192, x00280011: 8192 }) },
  { label: 'BitsAllocated 65535', apply: (l) => us(l, { x00280100: 65535 }) },
  { label: 'BitsAllocated 0', apply: (l) => us(l, { x00280100: 0 }) },
  { label: 'BitsAllocated 7', apply: (l) => us(l, { x00280100: 7 }) },
  { label: 'BitsAllocated 64', apply: (l) => us(l, { x00280100: 64 }) },
  { label: 'SamplesPerPixel 0', apply: (l) => us(l, { x00280002: 0 }) },
  { label: 'SamplesPerPixel 3', apply: (l) => us(l, { x00280002: 3 }) },
  { label: 'SamplesPerPixel 65535', apply: (l) => us(l, { x00280002: 65535 }) },
  { label: 'NumberOfFrames 2147483647', apply: (l) => frames(l, '2147483647') },
  { label: 'NumberOfFrames 99999999999', apply: (l) => frames(l, '99999999999') },
  { label: 'NumberOfFrames -1', apply: (l) => frames(l, '-1') },
  { label: 'NumberOfFrames abc', apply: (l) => frames(l, 'abc') },
  { label: 'NumberOfFrames 1000', apply: (l) => frames(l, '1000') },
];

function us(layout: DicomLayout, values: Record<string, number>): Buffer | null {
  let out = layout.bytes;
  for (const [tag, value] of Object.entries(values)) {
    const el = layout.get(tag);
    if (!el) return null;
    out = withUS(out, el, value);
  }
  return out;
}

/** Sets NumberOfFrames (IS), adding the element before Rows when the file has none. */
function frames(layout: DicomLayout, value: string): Buffer | null {
  const el = layout.get('x00280008');
  if (el) return withValue(layout, el, Buffer.from(value, 'latin1'));
  const rows = layout.get('x00280010');
  if (!rows || layout.transferSyntax === DEFLATED) return null;
  const padded = value.length % 2 ? `${value} ` : value;
  const explicit = layout.transferSyntax !== IMPLICIT_LE;
  const head = Buffer.alloc(8);
  const be = rows.bigEndian;
  if (be) {
    head.writeUInt16BE(0x0028, 0);
    head.writeUInt16BE(0x0008, 2);
  } else {
    head.writeUInt16LE(0x0028, 0);
    head.writeUInt16LE(0x0008, 2);
  }
  if (explicit) {
    head.write('IS', 4, 'latin1');
    writeUint(head, 6, 2, padded.length, be);
  } else writeUint(head, 4, 4, padded.length, be);
  return Buffer.concat([
    layout.bytes.subarray(0, rows.headerOffset),
    head,
    Buffer.from(padded, 'latin1'),
    layout.bytes.subarray(rows.headerOffset),
  ]);
}

const BAD_TRANSFER_SYNTAXES = [
  '1.2.3.4',
  '',
  'not a transfer syntax',
  DEFLATED,
  IMPLICIT_LE,
  EXPLICIT_BE,
  '1.2.840.10008.1.2.4.50',
  '1.2.840.10008.1.2.5',
  '9'.repeat(200),
  '../../x',
  '1.2.840.10008.1.2.1\0garbage',
  EXPLICIT_LE,
];

const BAD_UIDS = [
  '../../x',
  '1.2.3/45',
  `1.${'2'.repeat(70)}`,
  '',
  '1..2',
  '1.2\0.3',
  '1.2.ünï',
  '1.2.3 .4',
  '.1.2',
  '1.2.3.',
  `2.25.${'9'.repeat(59)}`,
  '..',
];

/** Tags (as dicom-parser names them) a bad UID goes into, in turn. */
const UID_TAGS = ['x0020000d', 'x0020000e', 'x00080018'];

/**
 * Every file mutant of the corpus, in a fixed order. Each non-deflated image gets UIDs of its own
 * first (see withUids), so the ones that survive are studies of their own.
 */
export function fileMutants(seed: number, fixturesDir: string): FileMutant[] {
  const out: FileMutant[] = [];
  const add = (category: string, label: string, data: Buffer | null) => {
    if (data) out.push({ id: out.length, category, label, data });
  };
  const uidRoot = `2.25.${subSeed(seed, 'uids')}`;
  const fresh = (original: Buffer, name: string): Buffer => {
    if (name.endsWith('DICOMDIR') || name === 'image_dfl.dcm') return original;
    const n = out.length;
    return withUids(original, {
      study: `${uidRoot}.${n}.1`,
      series: `${uidRoot}.${n}.2`,
      sop: `${uidRoot}.${n}.3`,
    });
  };

  for (const [fi, name] of MUTATED_FIXTURES.entries()) {
    const original = readFileSync(path.join(fixturesDir, name));
    const rng = new Rng(subSeed(seed, name));
    const deflated = name === 'image_dfl.dcm';
    const base = (data: Buffer) => new DicomLayout(fresh(data, name));

    // Truncations: in the preamble, in DICM, in the meta group, in an element's header and value,
    // in the pixel data (or the deflated data set), and the last byte. Positions are drawn as
    // fractions, then placed in each mutant's own layout.
    {
      const [f1, f2, f3, f4, f5] = [rng.next(), rng.next(), rng.next(), rng.next(), rng.next()];
      const at = (lo: number, hi: number, f: number) => lo + Math.floor(f * Math.max(1, hi - lo));
      const points: Array<(l: DicomLayout) => [number, string] | null> = [
        () => [at(1, 128, f1), 'inside the preamble'],
        () => [at(129, 132, f2), 'inside DICM'],
        (l) => [at(133, l.metaEnd, f3), 'inside the meta group'],
        (l) => {
          const els = (deflated ? l.elements : l.dataSet).filter((e) => e.length > 0);
          const el = els[Math.floor(f4 * els.length)]!;
          return [at(el.headerOffset + 1, el.dataOffset, f5), `inside the header of ${el.tag}`];
        },
        (l) => {
          const els = (deflated ? l.elements : l.dataSet).filter((e) => e.length > 0);
          const el = els[Math.floor(f5 * els.length)]!;
          return [at(el.dataOffset, el.dataOffset + el.length, f4), `inside the value of ${el.tag}`];
        },
        (l) => {
          const pixel = l.get('x7fe00010');
          if (pixel && pixel.length > 2)
            return [at(pixel.dataOffset + 1, pixel.dataOffset + pixel.length, f1), 'inside the pixel data'];
          return deflated ? [at(l.metaEnd + 1, l.bytes.length, f2), 'inside the deflated data set'] : null;
        },
        // The last byte of a deflate stream can be padding the data set does not need.
        (l) => (deflated ? null : [l.bytes.length - 1, 'one byte short']),
      ];
      for (const point of points) {
        const l = base(original);
        const p = point(l);
        if (p) add('truncation', `${name}: cut at ${p[0]} (${p[1]})`, l.bytes.subarray(0, p[0]));
      }
    }

    // Byte flips: one in the header, sixteen in the header, thirty-two anywhere.
    for (const [count, region] of [
      [1, 'header'],
      [16, 'header'],
      [32, 'anywhere'],
    ] as const) {
      const b = base(original);
      const pixel = b.get('x7fe00010');
      const end = region === 'header' && pixel ? pixel.dataOffset : b.bytes.length;
      const data = Buffer.from(b.bytes);
      const at: number[] = [];
      for (let i = 0; i < count; i++) {
        const p = rng.int(0, end - 1);
        data[p]! ^= rng.int(1, 255);
        at.push(p);
      }
      add(
        'byte flip',
        `${name}: ${count} flipped in the ${region} at ${at.slice(0, 4).join(',')}${count > 4 ? ',…' : ''}`,
        data,
      );
    }

    if (deflated) {
      // Bombs: a data set expanding to 64 MiB and 1 GiB of zeros (read as empty elements), and one
      // whose pixel data element declares and holds 1 GiB.
      const l = new DicomLayout(original);
      const head = original.subarray(0, l.metaEnd);
      const body = inflateRawSync(original.subarray(l.metaEnd));
      for (const mib of [64, 1024]) {
        add(
          'deflate bomb',
          `${name}: data set followed by ${mib} MiB of zeros`,
          Buffer.concat([
            head,
            deflateRawSync(body, { finishFlush: zlibConstants.Z_SYNC_FLUSH }),
            zerosDeflated(mib),
          ]),
        );
      }
      const explicitMeta = withTransferSyntax(l, EXPLICIT_LE)!;
      const inflated = new DicomLayout(
        Buffer.concat([explicitMeta.subarray(0, l.metaEnd + explicitMeta.length - original.length), body]),
      );
      const pixel = inflated.get('x7fe00010');
      if (pixel) {
        const before = withLength(inflated.bytes, pixel, 1024 * 1024 * 1024).subarray(
          inflated.metaEnd,
          pixel.dataOffset,
        );
        add(
          'deflate bomb',
          `${name}: pixel data of 1 GiB of zeros`,
          Buffer.concat([
            head,
            deflateRawSync(before, { finishFlush: zlibConstants.Z_SYNC_FLUSH }),
            zerosDeflated(1024),
          ]),
        );
      }
      continue;
    }

    // Element lengths that lie: undefined, huge, odd, zero, and the pixel data's.
    {
      const b = base(original);
      const els = b.dataSet.filter((e) => !e.undefinedLength);
      for (const [value, what] of [
        [0xffffffff, 'undefined (0xFFFFFFFF)'],
        [0x7ffffff0, 'huge'],
        [-1, 'odd'],
        [0, 'zero'],
      ] as const) {
        const el = rng.pick(els);
        const length = value === -1 ? el.length ^ 1 || 1 : value;
        add('element length', `${name}: ${el.tag} length ${what}`, withLength(b.bytes, el, length));
      }
      const pixel = b.get('x7fe00010');
      if (pixel && pixel.lengthSize === 4) {
        add(
          'element length',
          `${name}: pixel data length 0xFFFFFFFF`,
          withLength(b.bytes, pixel, 0xffffffff),
        );
        add('element length', `${name}: pixel data length + 2`, withLength(b.bytes, pixel, pixel.length + 2));
      }
    }

    // Image geometry: four fields per fixture, in turn, so every one is used.
    if (new DicomLayout(original).get('x00280010')) {
      for (let k = 0; k < 4; k++) {
        const g = GEOMETRY[(fi * 4 + k) % GEOMETRY.length]!;
        add('geometry', `${name}: ${g.label}`, g.apply(base(original)));
      }
    }

    // Pixel data shorter than the image declares.
    {
      const b = base(original);
      const pixel = b.get('x7fe00010');
      if (pixel && !pixel.encapsulated) {
        add(
          'short pixel data',
          `${name}: pixel data halved`,
          withValue(
            b,
            pixel,
            b.bytes.subarray(pixel.dataOffset, pixel.dataOffset + (pixel.length >> 2) * 2),
            0,
          ),
        );
      } else if (pixel) {
        // Basic offset table only, then the sequence delimiter: frames declared, none present.
        const botLength = b.bytes.readUInt32LE(pixel.dataOffset + 4);
        const cut = pixel.dataOffset + 8 + botLength;
        add(
          'short pixel data',
          `${name}: encapsulated pixel data without fragments`,
          Buffer.concat([b.bytes.subarray(0, cut), Buffer.from([0xfe, 0xff, 0xdd, 0xe0, 0, 0, 0, 0])]),
        );
      }
    }

    // Transfer syntax UIDs: two per fixture, in turn.
    for (let k = 0; k < 2; k++) {
      const ts = BAD_TRANSFER_SYNTAXES[(fi * 2 + k) % BAD_TRANSFER_SYNTAXES.length]!;
      add(
        'transfer syntax',
        `${name}: transfer syntax ${JSON.stringify(ts.slice(0, 40))}`,
        withTransferSyntax(base(original), ts),
      );
    }

    // Invalid UIDs, in turn across the study, series and instance.
    if (!name.endsWith('DICOMDIR')) {
      const bad = BAD_UIDS[fi % BAD_UIDS.length]!;
      const tag = UID_TAGS[fi % UID_TAGS.length]!;
      const b = base(original);
      const el = b.get(tag);
      if (el)
        add('uid', `${name}: ${tag} = ${JSON.stringify(bad)}`, withValue(b, el, Buffer.from(bad, 'utf8'), 0));
    }
  }
  return out;
}

function withTransferSyntax(layout: DicomLayout, ts: string): Buffer | null {
  const el = layout.get('x00020010');
  return el ? withValue(layout, el, Buffer.from(ts, 'latin1'), 0) : null;
}

export interface ZipEntrySpec {
  /** The name as bytes (for NUL or non-UTF-8 names) or text. */
  name: string | Buffer;
  data: Buffer;
  method?: 'store' | 'deflate';
  /** Content written instead of `data` (stored or deflated); sizes and CRC still describe `data`. */
  body?: Buffer;
  /** Overrides of what the headers say. */
  crc?: number;
  uncompressedSize?: number;
  flags?: number;
  methodCode?: number;
  /** Unix mode, e.g. 0o40755 for a directory or 0o120777 for a symbolic link. */
  mode?: number;
}

/**
 * A ZIP writer that writes whatever it is told, true or not (sizes, CRCs, flags, names), for
 * archives the server must survive. The server reads them with its own reader.
 */
export function writeZip(entries: ZipEntrySpec[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = typeof e.name === 'string' ? Buffer.from(e.name, 'utf8') : e.name;
    const body = e.body ?? (e.method === 'deflate' ? deflateRawSync(e.data) : e.data);
    const crc = e.crc ?? crc32(e.data) >>> 0;
    const method = e.methodCode ?? (e.method === 'deflate' ? 8 : 0);
    const flags = e.flags ?? 0x0800;
    const size = e.uncompressedSize ?? e.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size >>> 0, 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, body);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE((3 << 8) | 20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(flags, 8);
    cd.writeUInt16LE(method, 10);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(body.length, 20);
    cd.writeUInt32LE(size >>> 0, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(((e.mode ?? 0o100644) << 16) >>> 0, 38);
    cd.writeUInt32LE(offset, 42);
    central.push(cd, name);
    offset += local.length + name.length + body.length;
  }
  const cdBuf = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  end.writeUInt32LE(cdBuf.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cdBuf, end]);
}
