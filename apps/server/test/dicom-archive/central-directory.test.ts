import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCachedZip } from '../../src/dicom-archive/cached-zip';
import {
  DEFAULT_ZIP_LIMITS,
  listPlainZip,
  listZipFiles,
  portableListing,
  type ZipLimits,
} from '../../src/dicom-archive/zip-reader';
import { writeZip, type ZipEntrySpec } from '../helpers/dicom-mutations';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'central-directory-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const readOf = (zip: Buffer) => (start: number, length: number) => zip.subarray(start, start + length);

/** What yauzl's listing gives (listZipFiles), as plain data, or the reason it refused. */
async function yauzlListing(zip: Buffer, limits: ZipLimits = DEFAULT_ZIP_LIMITS) {
  try {
    const opened = await openCachedZip({
      size: zip.length,
      readAt: async (start, length) => zip.subarray(start, start + length),
      streamRange: (start, end) => Readable.from([zip.subarray(start, end)]),
    });
    try {
      return portableListing(await listZipFiles(opened, limits));
    } finally {
      opened.close();
    }
  } catch (err) {
    return { refused: (err as Error).message };
  }
}

/** The same from the plain reader: null when it leaves the archive to yauzl. */
function plainListing(zip: Buffer, limits: ZipLimits = DEFAULT_ZIP_LIMITS) {
  try {
    const listed = listPlainZip(readOf(zip), zip.length, limits);
    return listed && portableListing(listed);
  } catch (err) {
    return { refused: (err as Error).message };
  }
}

const dicomLike = (n: number) => Buffer.alloc(300 + n, n % 251);
const files = (count: number, extra: Partial<ZipEntrySpec> = {}): ZipEntrySpec[] =>
  Array.from({ length: count }, (_, i) => ({ name: `DICOM/IMG${i}`, data: dicomLike(i), ...extra }));

describe('reading a plain central directory at once', () => {
  it('gives what yauzl gives, for archives this reader takes and the checks they fail', async () => {
    const cases: Array<[string, Buffer, ZipLimits?]> = [
      ['stored files', writeZip(files(40))],
      ['deflated files', writeZip(files(5, { method: 'deflate' }))],
      ['an empty archive', writeZip([])],
      [
        'folders, names in Latin-1 and UTF-8, encrypted and unknown methods',
        writeZip([
          { name: 'CD/', data: Buffer.alloc(0), mode: 0o40755 },
          { name: Buffer.from('CD/caf\xe9', 'latin1'), data: dicomLike(1), flags: 0 },
          { name: 'CD/Ünïcode', data: dicomLike(2) },
          { name: 'CD/secret', data: dicomLike(3), flags: 0x0801, body: Buffer.alloc(315) },
          { name: 'CD/odd', data: dicomLike(4), methodCode: 12 },
          { name: 'CD\\IMG5', data: dicomLike(5) },
        ]),
      ],
      ['an unsafe path', writeZip([...files(2), { name: '../escape', data: dicomLike(9) }])],
      ['a symbolic link', writeZip([{ name: 'link', data: Buffer.from('/etc'), mode: 0o120777 }])],
      ['a NUL in a name', writeZip([{ name: Buffer.from('a\0b'), data: dicomLike(1) }])],
      ['too many entries', writeZip(files(3)), { ...DEFAULT_ZIP_LIMITS, maxEntries: 2 }],
      [
        'a bomb by total size',
        writeZip(files(3, { method: 'deflate' })),
        { ...DEFAULT_ZIP_LIMITS, maxInflatedBytes: 700 },
      ],
    ];
    for (const [what, zip, limits] of cases) {
      const plain = plainListing(zip, limits);
      expect(plain, what).not.toBeNull();
      expect(plain, what).toEqual(await yauzlListing(zip, limits));
    }
  });

  it('gives what yauzl gives for archives made by 7-Zip and by Python', async () => {
    const source = path.join(dir, 'source');
    await mkdir(path.join(source, 'DICOM', 'sub'), { recursive: true });
    for (let i = 0; i < 12; i++)
      await writeFile(path.join(source, 'DICOM', i % 2 ? 'sub' : '', `IM${i}`), dicomLike(i));
    const made: Array<[string, string]> = [];
    for (const [name, level] of [
      ['7z-stored.zip', '-mx0'],
      ['7z-deflated.zip', '-mx5'],
    ] as const) {
      const out = path.join(dir, name);
      const r = spawnSync('7z', ['a', '-tzip', level, out, 'DICOM'], { cwd: source });
      expect(r.status, String(r.stderr)).toBe(0);
      made.push([name, out]);
    }
    const python = path.join(dir, 'python.zip');
    const r = spawnSync(
      'python3',
      [
        '-c',
        `import zipfile, os, sys
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED) as z:
    for root, _, names in sorted(os.walk('DICOM')):
        for n in sorted(names): z.write(os.path.join(root, n))
    z.writestr('notes/read me é.txt', 'text')`,
        python,
      ],
      { cwd: source },
    );
    expect(r.status, String(r.stderr)).toBe(0);
    made.push(['python.zip', python]);
    for (const [name, file] of made) {
      const zip = await readFile(file);
      const plain = plainListing(zip);
      expect(plain, name).not.toBeNull();
      expect(plain, name).toEqual(await yauzlListing(zip));
    }
  });

  it('leaves anything else to yauzl', async () => {
    const zip = writeZip(files(3));
    const end = zip.length - 22;
    const withComment = Buffer.concat([
      zip.subarray(0, zip.length - 2),
      Buffer.from([5, 0]),
      Buffer.from('hello'),
    ]);
    const zip64Locator = Buffer.alloc(20);
    zip64Locator.writeUInt32LE(0x07064b50, 0);
    const withLocator = Buffer.concat([zip.subarray(0, end), zip64Locator, zip.subarray(end)]);
    const multiDisk = Buffer.from(zip);
    multiDisk.writeUInt16LE(1, end + 4);
    const strongEncryption = writeZip([{ name: 'a', data: dicomLike(1), flags: 0x0841 }]);
    const sizeMismatch = writeZip([{ name: 'a', data: dicomLike(1), uncompressedSize: 5 }]);
    const badRecord = Buffer.from(zip);
    badRecord.writeUInt32LE(0x12345678, zip.readUInt32LE(end + 16));
    const cases: Array<[string, Buffer]> = [
      ['an archive comment', withComment],
      ['a ZIP64 locator', withLocator],
      ['a second disk', multiDisk],
      ['strong encryption', strongEncryption],
      ['a stored entry whose sizes differ', sizeMismatch],
      ['a damaged record', badRecord],
      ['a truncated archive', zip.subarray(0, zip.length - 30)],
      ['no archive at all', Buffer.from('not a zip')],
      ['nothing', Buffer.alloc(0)],
    ];
    for (const [what, bytes] of cases) expect(plainListing(bytes), what).toBeNull();
    // yauzl still reads the archive with a comment, and says what is wrong with the others.
    expect(await yauzlListing(withComment)).toEqual(plainListing(zip));
    expect(await yauzlListing(sizeMismatch)).toMatchObject({ refused: expect.any(String) });
  });
});
