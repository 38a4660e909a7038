/**
 * The benchmark's CT series (run.ts, profile-copy.ts): CT_small.dcm's real GE header, with its
 * private tags, on 512×512 16-bit slices of one study and series, each with its own SOP UID.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { dcm, uid } from '../../apps/server/test/helpers/studies';

const SIZE = 512;
const FIXTURE = path.resolve(import.meta.dirname, '../../../shared/fixtures/dicom/pydicom/CT_small.dcm');

type Dict = Record<string, { vr: string; Value: unknown[]; _rawValue?: unknown }>;
const template = (() => {
  const b = readFileSync(FIXTURE);
  return dcm.data.DicomMessage.readFile(b.buffer.slice(b.byteOffset, b.byteOffset + b.length)) as unknown as {
    meta: Dict;
    dict: Dict;
  };
})();

/** A CT series: CT_small.dcm's header (GE, with private tags) on 512×512 16-bit slices. */
export function makeSeries(count: number, patientName: string): Buffer[] {
  const studyUid = uid();
  const seriesUid = uid();
  const set = (d: Dict, tag: string, vr: string, value: unknown[]) => {
    d[tag] = { vr, Value: value };
  };
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const sop = uid();
    const meta: Dict = structuredClone(template.meta);
    set(meta, '00020003', 'UI', [sop]);
    const ds: Dict = { ...template.dict };
    set(ds, '00080018', 'UI', [sop]);
    set(ds, '0020000D', 'UI', [studyUid]);
    set(ds, '0020000E', 'UI', [seriesUid]);
    set(ds, '00100010', 'PN', [{ Alphabetic: patientName }]);
    set(ds, '00100020', 'LO', [`BENCH-${patientName.length}`]);
    set(ds, '00200013', 'IS', [i + 1]);
    set(ds, '00200032', 'DS', [-158, -179, -i * 1.25]);
    set(ds, '00201041', 'DS', [-i * 1.25]);
    set(ds, '00280010', 'US', [SIZE]);
    set(ds, '00280011', 'US', [SIZE]);
    const pixels = new Uint16Array(SIZE * SIZE);
    for (let p = 0; p < pixels.length; p++) pixels[p] = (p * 37 + i * 101) & 0xfff;
    set(ds, '7FE00010', 'OW', [pixels.buffer]);
    const dict = new dcm.data.DicomDict(meta);
    dict.dict = ds;
    out.push(Buffer.from(dict.write()));
  }
  return out;
}
