import { Readable } from 'node:stream';
import type { Bundle } from '@medplum/fhirtypes';
import { openInstance, readingAhead, readInstance } from '../../dicom-archive/instance-location';
import type { RequestMeta } from '../../http/request-meta';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { Principal } from '../access';
import type { ExportBundleOptions, ExportedReport } from '../fhir';
import { buildDicomdir, directoryKeysOf, type DirectoryFile, type InstanceKeys } from './dicomdir';
import {
  DICOMDIR_PATH,
  FHIR_PATH,
  historyFiles,
  INDEX_PATH,
  indexHtml,
  instanceFile,
  type IndexStudy,
  reportPath,
  seriesDir,
  studyDir,
} from './export-contents';
import type {
  ExportInstanceRow,
  ExportsRepository,
  ExportSeriesRow,
  ExportStudyRow,
} from './exports.repository';
import { zipStream, type ZipEntry } from '../../dicom-archive/zip-writer';

/** One DICOM file handed to de-identification. */
export interface DeidentifyInput {
  sopInstanceUid: string;
  /** As indexed; needed for a file stored without a Part 10 header (one a DICOMDIR referenced). */
  transferSyntaxUid: string | null;
  bytes: Buffer;
}
/** Its de-identified copy, or why it was left out (burned-in annotation, a failure, …). */
export type DeidentifyOutput = { bytes: Buffer } | { leftOut: string };

/**
 * De-identifies one copy's files (the PS3.15 engine of dicom/deidentify, wired in services.ts).
 * One call is one copy: UIDs stay consistent across every file it is given, and dates move by the
 * owner's shift. It must yield one result per input, in order, reading the next input only after
 * yielding the previous result, so one file at a time is in memory.
 */
export type Deidentifier = (
  files: AsyncIterable<DeidentifyInput>,
  copy: { ownerId: string; exportId: string },
) => AsyncIterable<DeidentifyOutput>;

/** The FHIR part an export needs (modules/fhir `exportBundle`). */
export type ExportBundleBuilder = (
  p: Principal,
  opts: ExportBundleOptions,
  meta: RequestMeta,
) => Promise<{ bundle: Bundle; reports: ExportedReport[] }>;

export interface BuildDeps {
  repo: ExportsRepository;
  storage: ObjectStorage;
  bundle: ExportBundleBuilder;
  deidentify?: Deidentifier;
}

export interface BuildRequest {
  exportId: string;
  ownerId: string;
  studyIds: string[];
  deidentify: boolean;
  at: Date;
}

/** A failure the owner may read about (never patient data). */
export class ExportProblem extends Error {
  override readonly name = 'ExportProblem';
}

/** What is read of each instance to fill its DICOMDIR records (parsing stops at the pixel data). */
const HEADER_PREFIX_BYTES = 64 * 1024;

/** An instance's stream, keeping a copy of its first bytes for its DICOMDIR keys. */
async function* keepingPrefix(src: AsyncIterable<Buffer | Uint8Array>, sink: Buffer[]) {
  let kept = 0;
  for await (const raw of src) {
    const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
    if (kept < HEADER_PREFIX_BYTES) {
      const part = Buffer.from(chunk.subarray(0, HEADER_PREFIX_BYTES - kept));
      sink.push(part);
      kept += part.length;
    }
    yield chunk;
  }
}

/** Files read ahead of the one being written, when small enough to hold (at most 8 × 8 MiB). */
const READ_AHEAD = { depth: 8, maxBytes: 8 * 1024 * 1024 };

/** What is already in memory, as the async iterable an entry is read from. */
async function* oneChunk(bytes: Buffer) {
  yield bytes;
}

function fallbackKeys(study: ExportStudyRow, se: ExportSeriesRow, inst: ExportInstanceRow): InstanceKeys {
  return {
    patientId: study.patientId,
    patientName: study.patientName,
    studyInstanceUid: study.studyInstanceUid,
    studyDate: study.studyDate,
    studyTime: study.studyTime,
    studyDescription: study.studyDescription,
    studyId: null,
    accessionNumber: study.accessionNumber,
    seriesInstanceUid: se.seriesInstanceUid,
    modality: se.modality,
    seriesNumber: se.seriesNumber === null ? null : String(se.seriesNumber),
    sopClassUid: inst.sopClassUid,
    sopInstanceUid: inst.sopInstanceUid,
    transferSyntaxUid: inst.transferSyntaxUid,
    instanceNumber: inst.instanceNumber === null ? null : String(inst.instanceNumber),
  };
}

/** One stored file of the export, with where it sits (study `si`, series `ei`). */
interface Item {
  si: number;
  ei: number;
  study: ExportStudyRow;
  se: ExportSeriesRow;
  inst: ExportInstanceRow;
}

/** Where each file goes (DICOM/<study>/<series>/<n>), counted per series for the index page. */
function filePlacer(listed: IndexStudy[]) {
  /** Files written per series so far (`si/ei`), for the next File ID and the index. */
  const written = new Map<string, number>();
  return (si: number, ei: number, se: ExportSeriesRow) => {
    const key = `${si}/${ei}`;
    const n = written.get(key) ?? 0;
    written.set(key, n + 1);
    const eDir = seriesDir(ei);
    const entry = listed[si]!.series.find((x) => x.dir === eDir);
    if (entry) entry.files++;
    else
      listed[si]!.series.push({
        dir: eDir,
        modality: se.modality,
        description: se.seriesDescription,
        files: 1,
      });
    return ['DICOM', studyDir(si), eDir, instanceFile(n)];
  };
}
type PlaceFile = ReturnType<typeof filePlacer>;

/** The studies' files, series by series, so only one series' index rows are in memory. */
async function* walkFiles(repo: BuildDeps['repo'], studies: ExportStudyRow[]): AsyncGenerator<Item> {
  for (const [si, study] of studies.entries())
    for (const [ei, se] of (await repo.seriesOf(study.id)).entries())
      for (const inst of await repo.instancesOf(se.id)) yield { si, ei, study, se, inst };
}

/** The files as stored, read ahead; each one's first bytes give its DICOMDIR records' keys. */
async function* storedFiles(
  storage: BuildDeps['storage'],
  items: AsyncGenerator<Item>,
  place: PlaceFile,
  dir: DirectoryFile[],
): AsyncGenerator<ZipEntry> {
  for await (const { item, bytes } of readingAhead(storage, items, (x) => x.inst, READ_AHEAD)) {
    const { si, ei, study, se, inst } = item;
    const fileId = place(si, ei, se);
    const prefix: Buffer[] = [];
    yield {
      name: fileId.join('/'),
      size: inst.sizeBytes,
      crc32: inst.crc32,
      open: async () =>
        bytes ? oneChunk(await bytes) : keepingPrefix(await openInstance(storage, inst), prefix),
    };
    // The entry has been written by now: its first bytes give its records' keys.
    const head = bytes ? await bytes : Buffer.concat(prefix);
    dir.push({ fileId, keys: directoryKeysOf(head, fallbackKeys(study, se, inst)) });
  }
}

/**
 * The files de-identified, in one call for the whole export so UIDs stay consistent across its
 * studies and series; a file that cannot be is left out, with why.
 */
async function* deidentifiedFiles(
  storage: BuildDeps['storage'],
  deidentify: NonNullable<BuildDeps['deidentify']>,
  req: BuildRequest,
  items: AsyncGenerator<Item>,
  place: PlaceFile,
  out: { dir: DirectoryFile[]; leftOut: Array<{ what: string; reason: string }> },
): AsyncGenerator<ZipEntry> {
  const pending: Item[] = [];
  async function* inputs(): AsyncGenerator<DeidentifyInput> {
    for await (const item of items) {
      pending.push(item);
      yield {
        sopInstanceUid: item.inst.sopInstanceUid,
        transferSyntaxUid: item.inst.transferSyntaxUid,
        bytes: await readInstance(storage, item.inst),
      };
    }
  }
  for await (const result of deidentify(inputs(), { ownerId: req.ownerId, exportId: req.exportId })) {
    const item = pending.shift();
    if (!item) throw new Error('de-identification gave more results than files');
    if ('leftOut' in result) {
      out.leftOut.push({
        what: `A file of study ${item.si + 1}, series ${item.ei + 1}`,
        reason: result.leftOut,
      });
      continue;
    }
    const fileId = place(item.si, item.ei, item.se);
    yield { name: fileId.join('/'), data: result.bytes };
    out.dir.push({
      fileId,
      keys: directoryKeysOf(result.bytes, fallbackKeys(item.study, item.se, item.inst)),
    });
  }
}

/** What follows the DICOM files: the reports' PDFs, the FHIR Bundle, the history, the index page. */
async function* companionFiles(
  storage: BuildDeps['storage'],
  req: BuildRequest,
  extras: ExportExtras,
  index: IndexStudy[],
  leftOut: Array<{ what: string; reason: string }>,
): AsyncGenerator<ZipEntry> {
  const reports: Array<{ title: string; issued: Date; path: string }> = [];
  for (const r of extras.reports) {
    const chunks: Buffer[] = [];
    for await (const c of await storage.get(r.pdfKey)) chunks.push(c as Buffer);
    const pdf = Buffer.concat(chunks);
    yield { name: r.path, data: pdf };
    reports.push({ title: r.title, issued: r.issued, path: r.path });
  }
  const otherFiles: Array<{ path: string; description: string }> = [];
  if (extras.bundle) {
    yield { name: FHIR_PATH, data: Buffer.from(`${JSON.stringify(extras.bundle, null, 2)}\n`, 'utf8') };
    otherFiles.push({
      path: FHIR_PATH,
      description: 'FHIR R4 Bundle: you (Patient), each study (ImagingStudy), each report',
    });
  }
  for (const h of extras.history) {
    yield h;
    otherFiles.push({ path: h.name, description: 'sharing, link, order and access history' });
  }
  yield {
    name: INDEX_PATH,
    data: indexHtml({
      createdAt: req.at,
      deidentified: req.deidentify,
      studies: index,
      reports,
      otherFiles,
      leftOut,
    }),
  };
}

interface ExportExtras {
  reports: ExportedReport[];
  bundle: Bundle | null;
  history: Array<{ name: string; data: Buffer }>;
}

/**
 * Lays out one export: the studies as DICOM media (files under DICOM/STnnnnnn/SEnnnnnn/IMnnnnnn and
 * the DICOMDIR that indexes them), the delivered reports' PDFs, the FHIR Bundle, the history and
 * index.html, as ZIP entries made one at a time. Stored instances stream from storage unchanged;
 * de-identified ones pass through `deidentify` one by one.
 */
export function exportEntries(
  deps: BuildDeps,
  req: BuildRequest,
  studies: ExportStudyRow[],
  extras: ExportExtras,
): AsyncGenerator<ZipEntry> {
  const { repo, storage } = deps;
  const leftOut: Array<{ what: string; reason: string }> = [];

  async function* entries(): AsyncGenerator<ZipEntry> {
    const dir: DirectoryFile[] = [];
    const deidentify = req.deidentify ? deps.deidentify : undefined;
    if (req.deidentify && !deidentify)
      throw new ExportProblem('De-identified exports are not available yet.');
    const listed: IndexStudy[] = studies.map((study, si) => ({
      // A de-identified export lists no descriptions or dates: they may name the patient.
      study: req.deidentify ? { ...study, studyDescription: `Study ${si + 1}`, studyDate: null } : study,
      dir: studyDir(si),
      series: [],
    }));
    const place = filePlacer(listed);
    const items = walkFiles(repo, studies);
    if (!deidentify) yield* storedFiles(storage, items, place, dir);
    else yield* deidentifiedFiles(storage, deidentify, req, items, place, { dir, leftOut });
    if (!dir.length) throw new ExportProblem('None of the chosen studies has a file that could be exported.');
    yield { name: DICOMDIR_PATH, data: buildDicomdir(dir) };
    yield* companionFiles(storage, req, extras, listed, leftOut);
  }
  return entries();
}

/** Everything an export holds besides its DICOM files: the FHIR Bundle, its reports and the history. */
export async function exportExtras(deps: BuildDeps, req: BuildRequest, studies: ExportStudyRow[]) {
  // A de-identified export carries no reports, Bundle or history: each names the patient.
  if (req.deidentify) return { reports: [], bundle: null, history: [] };
  const studyIds = studies.map((s) => s.id);
  const principal: Principal = { userId: req.ownerId, role: null, via: 'session', studyId: null };
  const { bundle, reports } = await deps.bundle(
    principal,
    { studyIds, mediaPath: DICOMDIR_PATH, reportPath },
    { requestId: `export-${req.exportId}`, ip: '' },
  );
  const [shares, links, orders] = await Promise.all([
    deps.repo.sharesOf(studyIds),
    deps.repo.linksOf(req.ownerId, studyIds),
    deps.repo.ordersOf(req.ownerId, studyIds),
  ]);
  const targets = [
    ...studyIds,
    ...shares.map((s) => s.id),
    ...new Set(links.map((l) => l.id)),
    ...orders.map((o) => o.id),
  ];
  const access = await deps.repo.accessEventsOf(targets);
  return { reports, bundle, history: historyFiles({ shares, links, orders, access }, req.ownerId) };
}

/** Bytes handed to storage at a time: fewer, larger writes than the instances' own chunks. */
const WRITE_CHUNK_BYTES = 1024 * 1024;
/** How far reading from storage may run ahead of writing the archive. */
const READ_AHEAD_BYTES = 8 * 1024 * 1024;

/** Joins small chunks (headers, the instances' 64 KiB reads) into writes of about WRITE_CHUNK_BYTES. */
async function* coalesced(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let size = 0;
  for await (const c of chunks) {
    parts.push(c);
    size += c.length;
    if (size >= WRITE_CHUNK_BYTES) {
      yield parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
      parts = [];
      size = 0;
    }
  }
  if (size) yield Buffer.concat(parts, size);
}

/**
 * The ZIP of `entries` as a byte stream. Reading runs up to READ_AHEAD_BYTES ahead of the writer,
 * so storage reads and writes overlap; memory stays bounded by that, whatever the study's size.
 */
export function zipReadable(
  entries: AsyncIterable<ZipEntry>,
  at: Date,
  onBytes: (n: number) => void,
  spans?: ZipSpan[],
): Readable {
  const source = spans ? recordingSpans(entries, spans, at, onBytes) : zipStream(entries, { at, onBytes });
  return Readable.from(coalesced(source), {
    objectMode: false,
    highWaterMark: READ_AHEAD_BYTES,
  });
}

/** Where one entry's bytes lie in the ZIP written (store mode: its bytes as they are). */
export interface ZipSpan {
  name: string;
  size: number;
  /** Offset of its first byte in the ZIP. */
  offset: number;
  /** The bytes of index.html, which the disc image holds with its links renamed. */
  data?: Buffer;
}

/**
 * zipStream, noting where each entry's bytes land. zipStream asks for the next entry only once the
 * previous one's last byte has been taken from it, and writes no data descriptor, so an entry's
 * bytes end where the output stands when the next entry is asked for (or the entries end).
 */
async function* recordingSpans(
  entries: AsyncIterable<ZipEntry>,
  spans: ZipSpan[],
  at: Date,
  onBytes: (n: number) => void,
): AsyncGenerator<Buffer> {
  let written = 0;
  let open: Omit<ZipSpan, 'offset'> | null = null;
  const close = () => {
    if (open) spans.push({ ...open, offset: written - open.size });
    open = null;
  };
  async function* noting(): AsyncGenerator<ZipEntry> {
    for await (const entry of entries) {
      close();
      const size = 'data' in entry ? entry.data.length : entry.size;
      open = {
        name: entry.name,
        size,
        ...(entry.name === INDEX_PATH && 'data' in entry ? { data: entry.data } : {}),
      };
      yield entry;
    }
    close();
  }
  for await (const chunk of zipStream(noting(), { at, onBytes })) {
    written += chunk.length;
    yield chunk;
  }
}
