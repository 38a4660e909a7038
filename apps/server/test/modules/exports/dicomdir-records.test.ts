// The DICOMDIR's record types (src/modules/exports/dicomdir.ts) on real structured reports from
// ../shared/fixtures/dicom, read back by dcmtk and checked against the Basic Directory IOD by
// dicom3tools' dciodvfy.
import { spawnSync } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildDicomdir,
  directoryKeysOf,
  recordTypeOf,
  type InstanceKeys,
} from '../../../src/modules/exports/dicomdir';

const FIXTURES = path.resolve(import.meta.dirname, '../../../../../../shared/fixtures/dicom/pydicom');
const hasTool = (cmd: string) => spawnSync('which', [cmd]).status === 0;
const run = (cmd: string, args: string[], cwd: string) => {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  return `${r.stdout}${r.stderr}`;
};

const fallback = (n: number): InstanceKeys => ({
  patientId: null,
  patientName: null,
  studyInstanceUid: `1.2.3.${n}`,
  studyDate: null,
  studyTime: null,
  studyDescription: null,
  studyId: null,
  accessionNumber: null,
  seriesInstanceUid: `1.2.3.${n}.1`,
  modality: null,
  seriesNumber: null,
  sopClassUid: null,
  sopInstanceUid: `1.2.3.${n}.1.1`,
  transferSyntaxUid: null,
  instanceNumber: null,
});

describe('record types', () => {
  it('names each kind of instance as PS3.3 Table F.4-1 does', () => {
    expect(recordTypeOf('1.2.840.10008.5.1.4.1.1.2')).toBe('IMAGE');
    expect(recordTypeOf('1.2.840.10008.5.1.4.1.1.88.33')).toBe('SR DOCUMENT');
    expect(recordTypeOf('1.2.840.10008.5.1.4.1.1.88.59')).toBe('KEY OBJECT DOC');
    expect(recordTypeOf('1.2.840.10008.5.1.4.1.1.104.1')).toBe('ENCAP DOC');
    expect(recordTypeOf(null)).toBe('IMAGE');
  });

  it.skipIf(!hasTool('dcmdump'))(
    'gives structured reports SR DOCUMENT records with their concept name and flags, which dcmtk and dciodvfy accept',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'dicomdir-sr-'));
      try {
        const files = [];
        for (const [i, name] of ['test-SR.dcm', 'reportsi.dcm'].entries()) {
          const bytes = await readFile(path.join(FIXTURES, name));
          const fileId = ['DICOM', `SR${i + 1}`];
          await mkdir(path.join(dir, 'DICOM'), { recursive: true });
          await writeFile(path.join(dir, ...fileId), bytes);
          files.push({ fileId, keys: directoryKeysOf(bytes, fallback(i)) });
        }
        await writeFile(path.join(dir, 'DICOMDIR'), buildDicomdir(files));
        const dump = run('dcmdump', ['+M', 'DICOMDIR'], dir);
        expect(dump).not.toMatch(/^[EW]:/m);
        expect(dump.match(/\(0004,1430\) CS \[SR DOCUMENT\]/g)).toHaveLength(2);
        expect(dump).toMatch(/\(0040,a043\) SQ/i);
        expect(dump).toMatch(/\(0040,a491\) CS \[(COMPLETE|PARTIAL)\]/i);
        expect(dump).toMatch(/\(0040,a493\) CS \[(VERIFIED|UNVERIFIED)\]/i);
        if (hasTool('dciodvfy')) {
          const v = run('dciodvfy', ['DICOMDIR'], dir);
          expect(v).toContain('BasicDirectory');
          expect(v).not.toMatch(/^Error/m);
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
