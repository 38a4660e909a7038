import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IsoNameError,
  isoStream,
  layoutIso,
  level1Name,
  SECTOR,
  uniqueLevel1Paths,
  type IsoFile,
} from '../../src/dicom-archive/iso9660-writer';

const hasTool = (cmd: string) => spawnSync('which', [cmd]).status === 0;
const run = (cmd: string, args: string[]) => {
  const r = spawnSync(cmd, args, { maxBuffer: 256 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout, text: `${r.stdout.toString()}${r.stderr.toString()}` };
};

/** Deterministic bytes of file i (so a mix-up between files shows). */
function bytesOf(i: number, size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let k = 0; k < size; k += 32)
    createHash('sha256')
      .update(`${i}:${k}`)
      .digest()
      .copy(b, k, 0, Math.min(32, size - k));
  return b;
}

/** Yields file i in uneven chunks, as storage does. */
async function* chunksOf(i: number, size: number) {
  const all = bytesOf(i, size);
  for (let at = 0; at < size; at += 7777) yield all.subarray(at, Math.min(size, at + 7777));
}

let dir: string;
let image: string;
const at = new Date('2031-02-03T04:05:06Z');
const files: IsoFile[] = [
  { path: 'DICOMDIR', size: 1234 },
  // A series with enough files that its directory takes three sectors (records never cross one).
  ...Array.from({ length: 130 }, (_, i) => ({
    path: `DICOM/ST000001/SE000001/IM${String(i + 1).padStart(6, '0')}`,
    size: 2048 * (i % 3) + (i % 5) * 311,
  })),
  { path: 'DICOM/ST000002/SE000001/IM000001', size: 100_000 },
  { path: 'REPORTS/RPT00001.PDF', size: 4096 },
  { path: 'FHIR/BUNDLE.JSO', size: 777 },
  { path: 'INDEX.HTM', size: 2049 },
  { path: 'A/B/C/D/E/F/G/DEEP.TXT', size: 5 },
];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'iso9660-'));
  image = path.join(dir, 'test.iso');
  await pipeline(
    Readable.from(isoStream(files, (i) => chunksOf(i, files[i]!.size), { volumeId: 'MI_EXPORT', at })),
    createWriteStream(image),
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ISO 9660 writer', () => {
  it('writes the size its layout says, in whole sectors', async () => {
    const { size } = await stat(image);
    expect(size).toBe(layoutIso(files).imageSize);
    expect(size % SECTOR).toBe(0);
  });

  it('has a Primary Volume Descriptor isoinfo reads, and isovfy finds no error', () => {
    if (!hasTool('isoinfo')) return;
    const d = run('isoinfo', ['-d', '-i', image]);
    expect(d.status, d.text).toBe(0);
    expect(d.text).toContain('CD-ROM is in ISO 9660 format');
    expect(d.text).toMatch(/^Volume id: MI_EXPORT$/m);
    expect(d.text).toMatch(/^Logical block size is: 2048$/m);
    expect(d.text).toMatch(new RegExp(`^Volume size is: ${layoutIso(files).volumeSectors}$`, 'm'));
    expect(d.text).toMatch(/NO Joliet present/);
    const v = run('isovfy', ['-i', image]);
    expect(v.text).toContain('No errors found');
  });

  it('lists every file with its size, as NAME.EXT;1 (NAME.;1 without an extension)', () => {
    if (!hasTool('isoinfo')) return;
    const f = run('isoinfo', ['-f', '-i', image]);
    expect(f.status, f.text).toBe(0);
    const found = f.stdout.toString().trim().split('\n');
    for (const file of files) {
      const id = file.path.includes('.') ? `/${file.path};1` : `/${file.path}.;1`;
      expect(found, id).toContain(id);
    }
    const l = run('isoinfo', ['-l', '-i', image]).stdout.toString();
    const sizes = new Map<string, number>();
    let where = '';
    for (const line of l.split('\n')) {
      const head = /^Directory listing of (\/.*)$/.exec(line);
      if (head) where = head[1]!;
      const m = /^-\S+\s+\d+\s+\d+\s+\d+\s+(\d+) .*\]\s+(\S+);1 $/.exec(line);
      if (m) sizes.set(`${where}${m[2]!.replace(/\.$/, '')}`.slice(1), Number(m[1]));
    }
    expect(sizes.size).toBe(files.length);
    for (const file of files) expect(sizes.get(file.path), file.path).toBe(file.size);
  });

  it('gives back every file byte for byte (isoinfo -x, 7z x)', async () => {
    if (hasTool('isoinfo'))
      for (const [i, file] of files.entries()) {
        const id = file.path.includes('.') ? `/${file.path};1` : `/${file.path}.;1`;
        const x = run('isoinfo', ['-x', id, '-i', image]);
        expect(x.stdout.equals(bytesOf(i, file.size)), file.path).toBe(true);
      }
    if (hasTool('7z')) {
      const out = path.join(dir, 'x');
      const r = run('7z', ['x', '-y', `-o${out}`, image]);
      expect(r.status, r.text).toBe(0);
      for (const [i, file] of files.entries())
        expect((await readFile(path.join(out, file.path))).equals(bytesOf(i, file.size)), file.path).toBe(
          true,
        );
    }
  });

  it('orders the path table by level, parent and name', () => {
    if (!hasTool('isoinfo')) return;
    const p = run('isoinfo', ['-p', '-i', image]).stdout.toString();
    const names = [...p.matchAll(/^\s*\d+:\s+\d+\s+[0-9a-f]+\s+(\S*)$/gm)].map((m) => m[1]);
    expect(names.slice(0, 6)).toEqual(['', 'A', 'DICOM', 'FHIR', 'REPORTS', 'B']);
  });

  it('refuses what level 1 cannot hold', () => {
    expect(() => layoutIso([{ path: 'index.html', size: 1 }])).toThrow(IsoNameError);
    expect(() => layoutIso([{ path: 'TOOLONGNAME', size: 1 }])).toThrow(IsoNameError);
    expect(() => layoutIso([{ path: 'A/B/C/D/E/F/G/H/I', size: 1 }])).toThrow(/8 directory levels/);
    expect(() => layoutIso([{ path: 'BIG', size: 2 ** 32 }])).toThrow(/4 GiB/);
    expect(() =>
      layoutIso([
        { path: 'A', size: 1 },
        { path: 'A', size: 1 },
      ]),
    ).toThrow(/twice/);
  });

  it('fails the image when a file gives other bytes than declared', async () => {
    const short = async () => {
      for await (const _ of isoStream([{ path: 'A', size: 10 }], () => [Buffer.alloc(9)], {
        volumeId: 'X',
        at,
      }));
    };
    await expect(short()).rejects.toThrow(/9 bytes, 10 declared/);
  });

  it('maps other names onto level 1, keeping them apart', () => {
    expect(level1Name('bundle.json', 'file')).toBe('BUNDLE.JSO');
    expect(level1Name('index.html', 'file')).toBe('INDEX.HTM');
    expect(level1Name('my-file.tar.gz', 'file')).toBe('MY_FILE_.GZ');
    expect(
      uniqueLevel1Paths([
        'FHIR/bundle.json',
        'fhir/x',
        'HISTORY/history.json',
        'HISTORY/history.jsonld',
        'DICOMDIR',
      ]),
    ).toEqual(['FHIR/BUNDLE.JSO', 'FHIR_2/X', 'HISTORY/HISTORY.JSO', 'HISTORY/HISTOR_2.JSO', 'DICOMDIR']);
  });

  it('streams with flat memory: a 512 MiB image, fresh buffers, memory stays far below its size', async () => {
    const big = Array.from({ length: 128 }, (_, i) => ({ path: `DATA/F${i}`, size: 4 * 1024 * 1024 + 1 }));
    const used = () => {
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const before = used();
    let peak = 0;
    let total = 0;
    for await (const c of isoStream(
      big,
      async function* (i) {
        for (let k = 0; k < 64; k++) yield Buffer.alloc(64 * 1024, i);
        yield Buffer.alloc(1, i);
      },
      { volumeId: 'BIG', at },
    )) {
      total += c.length;
      peak = Math.max(peak, used() - before);
    }
    expect(total).toBe(layoutIso(big).imageSize);
    expect(total).toBeGreaterThan(512 * 1024 * 1024);
    expect(peak).toBeLessThan(128 * 1024 * 1024);
  });
});
