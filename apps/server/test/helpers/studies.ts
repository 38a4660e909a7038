import { randomUUID } from 'node:crypto';
import { deflateRawSync, crc32 } from 'node:zlib';
import dcmjs from 'dcmjs';
import { eq } from 'drizzle-orm';
import yauzl from 'yauzl';
import { studyUploads } from '../../src/db/schema/index';
import { JOB_SCHEMA } from '../../src/jobs/queue';
import { eventually, registerPatient, type TestContext } from './test-app';
import { tusUpload } from './tus-upload';

export { tusUpload };

export const FIXTURES = '../shared/fixtures/dicom/pydicom';

/** The part of dcmjs the tests use (its bundled typings cover less than it exports). */
interface Dcmjs {
  data: {
    DicomDict: new (meta: unknown) => { dict: unknown; write(): ArrayBuffer };
    DicomMessage: { readFile(buffer: ArrayBuffer, opts?: { ignoreErrors?: boolean }): { dict: unknown } };
    DicomMetaDictionary: {
      denaturalizeDataset(d: unknown): unknown;
      naturalizeDataset(d: unknown): Record<string, unknown>;
    };
  };
  log: { setLevel(level: string): void };
}
export const dcm = dcmjs as unknown as Dcmjs;

export interface ZipInput {
  name: string;
  data: Buffer;
  /** Default 'store'. */
  method?: 'store' | 'deflate';
  /** Unix mode, e.g. 0o120777 for a symbolic link. */
  mode?: number;
}

/**
 * A minimal ZIP writer for test input. It is deliberately naive (no name checks) so tests can build
 * the hostile archives the server must refuse; the server reads them with yauzl, not with this.
 */
export function buildZip(entries: ZipInput[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const body = e.method === 'deflate' ? deflateRawSync(e.data) : e.data;
    const crc = crc32(e.data) >>> 0;
    const method = e.method === 'deflate' ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, body);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE((3 << 8) | 20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(0x0800, 8);
    cd.writeUInt16LE(method, 10);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(body.length, 20);
    cd.writeUInt32LE(e.data.length, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(((e.mode ?? 0o100644) << 16) >>> 0, 38);
    cd.writeUInt32LE(offset, 42);
    central.push(cd, name);
    offset += local.length + name.length + body.length;
  }
  const cdBuf = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cdBuf.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cdBuf, end]);
}

/** Reads every entry of a ZIP with yauzl (an independent reader) and checks each CRC. */
export async function readZip(data: Buffer): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(data, { lazyEntries: true }, (err, z) => (err ? reject(err) : resolve(z))),
  );
  const out = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', resolve);
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, async (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        for await (const c of stream) chunks.push(c as Buffer);
        const buf = Buffer.concat(chunks);
        if (crc32(buf) >>> 0 !== entry.crc32) return reject(new Error(`CRC mismatch in ${entry.fileName}`));
        out.set(entry.fileName, buf);
        zip.readEntry();
      });
    });
    zip.readEntry();
  });
  return out;
}

export interface SyntheticInstance {
  studyUid: string;
  seriesUid: string;
  sopUid: string;
  patientName?: string;
  studyDescription?: string;
  modality?: string;
  studyDate?: string;
  instanceNumber?: number;
  rows?: number;
  columns?: number;
  /** Pixel data of this many bytes instead of rows × columns 16-bit samples (a file that lies). */
  pixelBytes?: number;
}

/** Writes a real DICOM Part 10 file with dcmjs. */
export function makeDicom(p: SyntheticInstance): Buffer {
  const { DicomDict, DicomMetaDictionary } = dcm.data;
  const rows = p.rows ?? 8;
  const columns = p.columns ?? 8;
  const meta = {
    FileMetaInformationVersion: new Uint8Array([0, 1]).buffer,
    MediaStorageSOPClassUID: '1.2.840.10008.5.1.4.1.1.2',
    MediaStorageSOPInstanceUID: p.sopUid,
    TransferSyntaxUID: '1.2.840.10008.1.2.1',
    ImplementationClassUID: '1.2.826.0.1.3680043.9.7433.1',
  };
  const dict = new DicomDict(DicomMetaDictionary.denaturalizeDataset(meta));
  const pixels = new Uint16Array(p.pixelBytes !== undefined ? p.pixelBytes / 2 : rows * columns);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 37 + (p.instanceNumber ?? 1)) & 0xfff;
  dict.dict = DicomMetaDictionary.denaturalizeDataset({
    SpecificCharacterSet: 'ISO_IR 192',
    SOPClassUID: '1.2.840.10008.5.1.4.1.1.2',
    SOPInstanceUID: p.sopUid,
    StudyInstanceUID: p.studyUid,
    SeriesInstanceUID: p.seriesUid,
    Modality: p.modality ?? 'CT',
    PatientName: p.patientName ?? 'Test^Patient',
    PatientID: 'PID-1',
    StudyDescription: p.studyDescription ?? 'Synthetic study',
    StudyDate: p.studyDate ?? '20240102',
    SeriesNumber: '1',
    InstanceNumber: String(p.instanceNumber ?? 1),
    Rows: rows,
    Columns: columns,
    BitsAllocated: 16,
    BitsStored: 12,
    HighBit: 11,
    PixelRepresentation: 0,
    SamplesPerPixel: 1,
    PhotometricInterpretation: 'MONOCHROME2',
    PixelData: pixels.buffer,
    _vrMap: { PixelData: 'OW' },
  });
  return Buffer.from(dict.write());
}

export function uid(): string {
  return `2.25.${BigInt(`0x${randomUUID().replace(/-/g, '')}`).toString()}`;
}

export interface Patient {
  id: string;
  token: string;
  auth: { authorization: string };
}

export async function newPatient(ctx: TestContext, email: string): Promise<Patient> {
  const res = await registerPatient(ctx, email);
  const token = res.json().data.authToken as string;
  const me = await ctx.app.inject({
    method: 'GET',
    url: '/api/auth/me',
    headers: { authorization: `Bearer ${token}` },
  });
  return { id: me.json().id as string, token, auth: { authorization: `Bearer ${token}` } };
}

export async function storageToken(ctx: TestContext, p: Patient): Promise<string> {
  const res = await ctx.app.inject({ method: 'GET', url: '/api/storage/token', headers: p.auth });
  return res.json().accessToken as string;
}

/** Upload a ZIP, ask for processing and wait for the job to finish; returns the upload record. */
export async function uploadAndProcess(ctx: TestContext, baseUrl: string, p: Patient, zip: Buffer) {
  const objectName = `${p.id}/${randomUUID()}/study.zip`;
  await tusUpload(baseUrl, await storageToken(ctx, p), objectName, zip);
  return { objectName, ...(await processUploaded(ctx, p, objectName)) };
}

/** Asks for an uploaded archive to be processed and waits for the job to finish; returns the upload record. */
export async function processUploaded(ctx: TestContext, p: Patient, objectName: string, timeoutMs = 30_000) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/studies/process',
    headers: p.auth,
    payload: { prefix: objectName, jobContext: { uploadType: 'regular' } },
  });
  if (res.statusCode !== 202) throw new Error(`process failed: ${res.statusCode} ${res.body}`);
  const upload = await eventually(async () => {
    const [row] = await ctx.services.database.db
      .select()
      .from(studyUploads)
      .where(eq(studyUploads.objectName, objectName));
    return row && (row.status === 'completed' || row.status === 'failed') ? row : undefined;
  }, timeoutMs);
  const jobId = res.json().jobId as string;
  // The row turns final inside the job; the clean-up after it (archive, unindexed objects) ends with the job.
  await jobSettled(ctx, jobId, timeoutMs);
  return { upload, jobId };
}

/** Waits until pg-boss holds the job as finished (completed, failed for good or cancelled). */
export async function jobSettled(ctx: TestContext, jobId: string, timeoutMs = 30_000): Promise<void> {
  await eventually(async () => {
    const res = await ctx.services.database.sql.executeSql(
      `select state from ${JOB_SCHEMA}.job where id = $1`,
      [jobId],
    );
    const state = (res.rows[0] as { state?: string } | undefined)?.state;
    return state === 'completed' || state === 'failed' || state === 'cancelled';
  }, timeoutMs);
}

export async function listen(ctx: TestContext): Promise<string> {
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const address = ctx.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}
