/**
 * An ISO 9660 (ECMA-119) image writer, level 1 (8.3 names of d-characters, one extent a file, at
 * most 8 directory levels), for DICOM media as PS3.12 Annex F (120 mm CD-R) and P (DVD) describe:
 * the File-set ID is the Volume Identifier, and a DICOM File ID `A/B/C` is the ISO 9660 file
 * `/A/B/C.;1` (no extension, version 1).
 *
 * It streams. Every file's path and size is known before the first byte is written, so the whole
 * layout (volume descriptors, path tables, directories, each file's extent) is fixed up front and
 * the image is written front to back: descriptors and directories first, then the files' bytes in
 * the order given, each padded to a 2048-byte sector. Memory holds the layout (about 60 bytes a
 * file) and one chunk, whatever the size of the image.
 *
 * No npm package does this (the ones there are build the image in memory or run mkisofs).
 */

export const SECTOR = 2048;
/** The largest file one extent holds: Data Length is a 32-bit field (ECMA-119 9.1.4). */
export const MAX_FILE_SIZE = 0xffffffff;
/** Directory levels, the root being level 1 (ECMA-119 6.8.2.1; PS3.10's File-set limit too). */
export const MAX_LEVELS = 8;

export interface IsoFile {
  /**
   * Where it goes: directory identifiers and a file name of level 1, separated by `/`, e.g.
   * `DICOM/ST000001/SE000001/IM000001` or `REPORTS/RPT00001.PDF`. Written as `NAME.EXT;1`.
   */
  path: string;
  size: number;
}

export interface IsoOptions {
  /** Volume Identifier (d-characters, at most 32); for DICOM media the File-set ID. */
  volumeId: string;
  /** Recording and volume creation date. */
  at: Date;
  /** Application Identifier (a-characters, at most 128). */
  application?: string;
  /** Called with each file byte count written (not the padding or the directories). */
  onBytes?: (n: number) => void;
}

/** Why a path cannot be written as ISO 9660 level 1. */
export class IsoNameError extends Error {
  override readonly name = 'IsoNameError';
}

const D_CHARS = /^[A-Z0-9_]*$/;
/** a-characters (ECMA-119 7.4.1): d-characters, space and `!"%&'()*+,-./:;<=>?`. */
const A_CHARS = /^[A-Z0-9_ !"%&'()*+,\-./:;<=>?]*$/;

/**
 * The level-1 form of a name, for names that are not already one: upper case, every character
 * other than A–Z, 0–9 and `_` becomes `_`, the name part is cut to 8 characters and the extension
 * (after the last dot) to 3. `bundle.json` → `BUNDLE.JSO`, `index.html` → `INDEX.HTM`.
 * Two names may map to the same one: the caller resolves that (see `uniqueLevel1Names`).
 */
export function level1Name(name: string, kind: 'file' | 'directory'): string {
  const clean = (s: string) => s.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
  if (kind === 'directory') return clean(name).slice(0, 8) || '_';
  const dot = name.lastIndexOf('.');
  const base = clean(dot > 0 ? name.slice(0, dot) : name).slice(0, 8) || '_';
  const ext = dot > 0 ? clean(name.slice(dot + 1)).slice(0, 3) : '';
  return ext ? `${base}.${ext}` : base;
}

/**
 * Level-1 paths for `paths` (`/`-separated), one for one and all different: each component as
 * `level1Name` makes it, and where two different paths would meet, the later one's last name part
 * ends in `_2`, `_3`, … (cut so the name stays 8 characters).
 */
export function uniqueLevel1Paths(paths: string[]): string[] {
  const dirs = new Map<string, string>(); // original directory path → mapped
  const taken = new Set<string>(); // mapped paths in use (files and directories)
  const unique = (mapped: string, parent: string, kind: 'file' | 'directory') => {
    let candidate = mapped;
    const dot = kind === 'file' ? mapped.indexOf('.') : -1;
    const base = dot >= 0 ? mapped.slice(0, dot) : mapped;
    const ext = dot >= 0 ? mapped.slice(dot) : '';
    for (let n = 2; taken.has(parent + candidate); n++)
      candidate = `${base.slice(0, 8 - String(n).length - 1)}_${n}${ext}`;
    taken.add(parent + candidate);
    return candidate;
  };
  return paths.map((p) => {
    const parts = p.split('/');
    let origin = '';
    let mapped = '';
    for (const part of parts.slice(0, -1)) {
      origin += `${part}/`;
      let m = dirs.get(origin);
      if (m === undefined) {
        m = unique(level1Name(part, 'directory'), mapped, 'directory');
        dirs.set(origin, m);
      }
      mapped += `${m}/`;
    }
    return mapped + unique(level1Name(parts.at(-1)!, 'file'), mapped, 'file');
  });
}

interface FileNode {
  kind: 'file';
  /** The File Identifier as recorded: `NAME.EXT;1` (`NAME.;1` without an extension). */
  identifier: string;
  sortName: string;
  sortExt: string;
  size: number;
  sector: number;
}
interface DirNode {
  kind: 'directory';
  identifier: string;
  sortName: string;
  sortExt: string;
  parent: DirNode | null;
  level: number;
  children: Map<string, DirNode | FileNode>;
  /** Its number in the path table (the root is 1). */
  number: number;
  sector: number;
  /** Bytes of its extent, a whole number of sectors. */
  size: number;
}

const sectorsFor = (bytes: number) => Math.ceil(bytes / SECTOR);
const recordLength = (identifierLength: number) =>
  33 + identifierLength + (identifierLength % 2 === 0 ? 1 : 0);

/** ECMA-119 9.3: by name, then extension, each compared as if padded with spaces. */
function compareIds(a: { sortName: string; sortExt: string }, b: { sortName: string; sortExt: string }) {
  const byName = a.sortName < b.sortName ? -1 : a.sortName > b.sortName ? 1 : 0;
  if (byName) return byName;
  return a.sortExt < b.sortExt ? -1 : a.sortExt > b.sortExt ? 1 : 0;
}

export interface IsoLayout {
  /** Directories in path-table order (the root first). */
  directories: DirNode[];
  /** The files in the order given, with their extents. */
  files: FileNode[];
  pathTableSize: number;
  lPathTable: number;
  mPathTable: number;
  /** Sectors in the whole image. */
  volumeSectors: number;
  /** Bytes in the whole image. */
  imageSize: number;
}

/** Lays out the image: every structure's sector and every file's extent, in the order given. */
export function layoutIso(files: IsoFile[]): IsoLayout {
  const { root, fileNodes } = buildTree(files);
  const directories = pathTableOrder(root);
  const pathTableSize = directories.reduce(
    (n, d) => n + 8 + d.identifier.length + (d.identifier.length % 2),
    0,
  );
  let sector = 16 + 2; // system area, the Primary Volume Descriptor and the Set Terminator
  const lPathTable = sector;
  sector += sectorsFor(pathTableSize);
  const mPathTable = sector;
  sector += sectorsFor(pathTableSize);
  sector = placeDirectories(directories, sector);
  for (const f of fileNodes) {
    f.sector = sector;
    sector += sectorsFor(f.size);
  }
  return {
    directories,
    files: fileNodes,
    pathTableSize,
    lPathTable,
    mPathTable,
    volumeSectors: sector,
    imageSize: sector * SECTOR,
  };
}

function directoryNode(identifier: string, parent: DirNode | null): DirNode {
  return {
    kind: 'directory',
    identifier,
    sortName: parent ? identifier : '',
    sortExt: '',
    parent,
    level: parent ? parent.level + 1 : 1,
    children: new Map(),
    number: parent ? 0 : 1,
    sector: 0,
    size: 0,
  };
}

/** The directory tree of the files' paths, every name checked against ISO 9660 level 1. */
function buildTree(files: IsoFile[]): { root: DirNode; fileNodes: FileNode[] } {
  const root = directoryNode('\0', null);
  const fileNodes: FileNode[] = [];
  for (const f of files) {
    const parts = f.path.split('/');
    if (parts.length > MAX_LEVELS)
      throw new IsoNameError(`${f.path}: more than ${MAX_LEVELS} directory levels`);
    if (!Number.isSafeInteger(f.size) || f.size < 0) throw new IsoNameError(`${f.path}: size ${f.size}`);
    if (f.size > MAX_FILE_SIZE)
      throw new IsoNameError(`${f.path}: ${f.size} bytes, more than one ISO 9660 extent holds (4 GiB − 1)`);
    let dir = root;
    for (const part of parts.slice(0, -1)) {
      if (!part || part.length > 8 || !D_CHARS.test(part))
        throw new IsoNameError(`${f.path}: directory "${part}" is not 1–8 of A–Z, 0–9, _`);
      let next = dir.children.get(part);
      if (next?.kind === 'file') throw new IsoNameError(`${f.path}: "${part}" is a file`);
      if (!next) {
        next = directoryNode(part, dir);
        dir.children.set(part, next);
      }
      dir = next;
    }
    const last = parts.at(-1)!;
    const m = /^([^.]*)(?:\.([^.]*))?$/.exec(last);
    const [name, ext = ''] = m ? [m[1]!, m[2]] : ['', ''];
    if (!m || name.length > 8 || ext.length > 3 || !(name + ext) || !D_CHARS.test(name) || !D_CHARS.test(ext))
      throw new IsoNameError(`${f.path}: "${last}" is not a level-1 name (8.3 of A–Z, 0–9, _)`);
    const key = ext ? `${name}.${ext}` : name;
    if (dir.children.has(key)) throw new IsoNameError(`${f.path}: given twice`);
    const node: FileNode = {
      kind: 'file',
      identifier: `${name}.${ext};1`,
      sortName: name,
      sortExt: ext,
      size: f.size,
      sector: 0,
    };
    dir.children.set(key, node);
    fileNodes.push(node);
  }
  return { root, fileNodes };
}

/** Path table order (ECMA-119 6.9.1): by level, then parent's number, then identifier; numbered so. */
function pathTableOrder(root: DirNode): DirNode[] {
  const directories: DirNode[] = [root];
  for (let i = 0; i < directories.length; i++) {
    const d = directories[i]!;
    d.number = i + 1;
    const subdirs = [...d.children.values()].filter((c): c is DirNode => c.kind === 'directory');
    directories.push(...subdirs.sort(compareIds));
  }
  return directories;
}

/** Gives each directory its extent from `sector` on; returns the first sector after them. */
function placeDirectories(directories: DirNode[], sector: number): number {
  for (const d of directories) {
    // Records never cross a sector boundary (ECMA-119 6.8.1.1).
    let used = 2 * 34; // `.` and `..`
    let sectors = 1;
    for (const c of d.children.values()) {
      const len = recordLength(c.identifier.length);
      if (used + len > SECTOR) {
        sectors++;
        used = 0;
      }
      used += len;
    }
    d.sector = sector;
    d.size = sectors * SECTOR;
    sector += sectors;
  }
  return sector;
}

const both16 = (b: Buffer, at: number, v: number) => {
  b.writeUInt16LE(v, at);
  b.writeUInt16BE(v, at + 2);
};
const both32 = (b: Buffer, at: number, v: number) => {
  b.writeUInt32LE(v, at);
  b.writeUInt32BE(v, at + 4);
};
const text = (b: Buffer, at: number, length: number, s: string) => {
  b.fill(0x20, at, at + length);
  b.write(s.slice(0, length), at, 'ascii');
};
/** ECMA-119 8.4.26.1: `YYYYMMDDHHMMSScc` and the offset from GMT (0 = UTC). */
const longDate = (b: Buffer, at: number, d: Date | null) => {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const s = d
    ? `${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}${p(Math.floor(d.getUTCMilliseconds() / 10))}`
    : '0000000000000000';
  b.write(s, at, 'ascii');
  b[at + 16] = 0;
};
/** ECMA-119 9.1.5: years since 1900, month, day, hour, minute, second, offset from GMT. */
const shortDate = (b: Buffer, at: number, d: Date) => {
  b[at] = Math.min(255, Math.max(0, d.getUTCFullYear() - 1900));
  b[at + 1] = d.getUTCMonth() + 1;
  b[at + 2] = d.getUTCDate();
  b[at + 3] = d.getUTCHours();
  b[at + 4] = d.getUTCMinutes();
  b[at + 5] = d.getUTCSeconds();
  b[at + 6] = 0;
};

/** A Directory Record (ECMA-119 9.1). */
function directoryRecord(identifier: string, sector: number, size: number, isDir: boolean, at: Date): Buffer {
  const id = Buffer.from(identifier, 'ascii');
  const rec = Buffer.alloc(recordLength(id.length));
  rec[0] = rec.length;
  rec[1] = 0; // no extended attribute record
  both32(rec, 2, sector);
  both32(rec, 10, size);
  shortDate(rec, 18, at);
  rec[25] = isDir ? 0x02 : 0x00;
  rec[26] = 0; // not interleaved
  rec[27] = 0;
  both16(rec, 28, 1); // volume sequence number
  rec[32] = id.length;
  id.copy(rec, 33);
  return rec;
}

function primaryVolumeDescriptor(layout: IsoLayout, opts: IsoOptions): Buffer {
  const b = Buffer.alloc(SECTOR);
  b[0] = 1;
  b.write('CD001', 1, 'ascii');
  b[6] = 1;
  text(b, 8, 32, ''); // System Identifier
  text(b, 40, 32, opts.volumeId);
  both32(b, 80, layout.volumeSectors);
  both16(b, 120, 1); // Volume Set Size
  both16(b, 124, 1); // Volume Sequence Number
  both16(b, 128, SECTOR);
  both32(b, 132, layout.pathTableSize);
  b.writeUInt32LE(layout.lPathTable, 140);
  b.writeUInt32LE(0, 144);
  b.writeUInt32BE(layout.mPathTable, 148);
  b.writeUInt32BE(0, 152);
  const root = layout.directories[0]!;
  directoryRecord('\0', root.sector, root.size, true, opts.at).copy(b, 156);
  text(b, 190, 128, opts.volumeId); // Volume Set Identifier
  text(b, 318, 128, ''); // Publisher
  text(b, 446, 128, ''); // Data Preparer
  text(b, 574, 128, opts.application ?? '');
  text(b, 702, 37, ''); // Copyright File
  text(b, 739, 37, ''); // Abstract File
  text(b, 776, 37, ''); // Bibliographic File
  longDate(b, 813, opts.at); // creation
  longDate(b, 830, opts.at); // modification
  longDate(b, 847, null); // expiration: none
  longDate(b, 864, null); // effective: now
  b[881] = 1; // File Structure Version
  return b;
}

function terminator(): Buffer {
  const b = Buffer.alloc(SECTOR);
  b[0] = 255;
  b.write('CD001', 1, 'ascii');
  b[6] = 1;
  return b;
}

function pathTable(layout: IsoLayout, bigEndian: boolean): Buffer {
  const b = Buffer.alloc(sectorsFor(layout.pathTableSize) * SECTOR);
  let at = 0;
  for (const d of layout.directories) {
    const id = Buffer.from(d.identifier, 'ascii');
    b[at] = id.length;
    b[at + 1] = 0;
    if (bigEndian) {
      b.writeUInt32BE(d.sector, at + 2);
      b.writeUInt16BE(d.parent?.number ?? 1, at + 6);
    } else {
      b.writeUInt32LE(d.sector, at + 2);
      b.writeUInt16LE(d.parent?.number ?? 1, at + 6);
    }
    id.copy(b, at + 8);
    at += 8 + id.length + (id.length % 2);
  }
  return b;
}

function directoryExtent(d: DirNode, at: Date): Buffer {
  const b = Buffer.alloc(d.size);
  const parent = d.parent ?? d;
  let offset = 0;
  let sectorEnd = SECTOR;
  const put = (rec: Buffer) => {
    if (offset + rec.length > sectorEnd) {
      offset = sectorEnd;
      sectorEnd += SECTOR;
    }
    rec.copy(b, offset);
    offset += rec.length;
  };
  put(directoryRecord('\0', d.sector, d.size, true, at));
  put(directoryRecord('\x01', parent.sector, parent.size, true, at));
  for (const c of [...d.children.values()].sort(compareIds))
    put(
      c.kind === 'directory'
        ? directoryRecord(c.identifier, c.sector, c.size, true, at)
        : directoryRecord(c.identifier, c.size ? c.sector : 0, c.size, false, at),
    );
  return b;
}

type Chunks = AsyncIterable<Buffer | Uint8Array> | Iterable<Buffer | Uint8Array>;

/**
 * The image of `files` as a stream of chunks. `open(i)` gives file i's bytes; it is called for
 * each file in order, once the previous file's bytes are all written, and must give exactly its
 * declared size (anything else fails the image).
 */
export async function* isoStream(
  files: IsoFile[],
  open: (index: number) => Chunks | Promise<Chunks>,
  opts: IsoOptions,
): AsyncGenerator<Buffer> {
  if (opts.volumeId.length > 32 || !D_CHARS.test(opts.volumeId))
    throw new IsoNameError(`volume identifier "${opts.volumeId}" is not 0–32 of A–Z, 0–9, _`);
  if (opts.application && (opts.application.length > 128 || !A_CHARS.test(opts.application)))
    throw new IsoNameError('application identifier is not up to 128 a-characters');
  const layout = layoutIso(files);
  yield Buffer.alloc(16 * SECTOR);
  yield primaryVolumeDescriptor(layout, opts);
  yield terminator();
  yield pathTable(layout, false);
  yield pathTable(layout, true);
  for (const d of layout.directories) yield directoryExtent(d, opts.at);
  for (const [i, f] of files.entries()) {
    let got = 0;
    for await (const raw of await open(i)) {
      const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
      got += chunk.length;
      if (got > f.size) throw new Error(`${f.path}: more bytes than its declared ${f.size}`);
      if (chunk.length) yield chunk;
      opts.onBytes?.(chunk.length);
    }
    if (got !== f.size) throw new Error(`${f.path}: ${got} bytes, ${f.size} declared`);
    const pad = (SECTOR - (f.size % SECTOR)) % SECTOR;
    if (pad) yield Buffer.alloc(pad);
  }
}
