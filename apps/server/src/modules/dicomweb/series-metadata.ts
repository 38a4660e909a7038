import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import type { Logger } from 'pino';
import { readInstance } from '../../dicom-archive/instance-location';
import type { ObjectStorage } from '../../ports/storage/storage';
import { instanceAttributes } from './dicom-json';
import { DICOMWEB_ROOT } from './dicomweb-access';
import { HEADER_READ_BYTES, readInstanceMetadata, readSlots, type ReadSlots } from './instance-header';
import type {
  DicomwebRepository,
  InstanceRow,
  MetadataInstance,
  SeriesMetadataState,
  SeriesRow,
  StudyRow,
} from './dicomweb.repository';
import { dicomJsonText, jsonMemo, parseInstance, type ParsedInstance } from './part10';
import { sortTags } from './qido';

const gzip = promisify(gzipCb);

/**
 * How many of a series' files are being read at once while its metadata is built: mostly the
 * first few KiB of each (readInstanceMetadata), so storage latency overlaps the parsing.
 */
const METADATA_CONCURRENCY = 16;
/** How many of them may be read whole at once (files whose header alone does not describe them). */
const WHOLE_READS = 8;
/** Room left after the largest header seen in the series when sizing the reads of the next files. */
const HEADER_MARGIN = 2048;

/** Series metadata kept in each process's memory, at most this many bytes of gzip together. */
const HELD_BYTES = 64 * 1024 * 1024;

/**
 * The gzip of recently read series, each for the revision it was built for, least recently used
 * dropped first. Only ever served after the database said that revision is still the series'
 * current one (seriesMetadataState), so a change made through another node is never missed; it only
 * spares moving the bytes from the database again on every request.
 */
class HeldMetadata {
  private readonly bySeries = new Map<string, { revision: number; gzip: Buffer; uidKey: string }>();
  private readonly seriesByUid = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  /** The copy held for the series a lookup names, if any. */
  find(by: { seriesId: string } | { studyId: string; seriesUid: string }) {
    const seriesId = 'seriesId' in by ? by.seriesId : this.seriesByUid.get(`${by.studyId}|${by.seriesUid}`);
    const copy = seriesId === undefined ? undefined : this.bySeries.get(seriesId);
    return copy && seriesId ? { seriesId, revision: copy.revision, gzip: copy.gzip } : undefined;
  }

  keep(series: SeriesRow, gzip: Buffer): void {
    if (gzip.length > this.budget / 8) return;
    this.drop(series.id);
    const uidKey = `${series.studyId}|${series.seriesInstanceUid}`;
    this.bySeries.set(series.id, { revision: series.revision, gzip, uidKey });
    this.seriesByUid.set(uidKey, series.id);
    this.bytes += gzip.length;
    for (const [id] of this.bySeries) {
      if (this.bytes <= this.budget) break;
      this.drop(id);
    }
  }

  /** Marks the copy as just used, so it is dropped last. */
  touch(seriesId: string): void {
    const copy = this.bySeries.get(seriesId);
    if (!copy) return;
    this.bySeries.delete(seriesId);
    this.bySeries.set(seriesId, copy);
  }

  private drop(seriesId: string): void {
    const copy = this.bySeries.get(seriesId);
    if (!copy) return;
    this.bySeries.delete(seriesId);
    this.bytes -= copy.gzip.length;
    if (this.seriesByUid.get(copy.uidKey) === seriesId) this.seriesByUid.delete(copy.uidKey);
  }
}

export interface SeriesMetadataDeps {
  repo: Pick<DicomwebRepository, 'seriesMetadataState' | 'storeMetadata'>;
  storage: ObjectStorage;
  log: Logger;
}

/** One series' metadata being built: the gzip, and its copy being kept in the database. */
interface Build {
  gzip: Promise<Buffer>;
  stored: Promise<void>;
}

/**
 * How much of the next file to read first: the files of one series have headers of about the same
 * size, so after the first few, a little more than the largest one seen (a smaller read is cheaper;
 * a file whose header is larger is read again, further, as before).
 */
function headerSizer() {
  let largest = 0;
  return {
    next: () =>
      largest === 0
        ? HEADER_READ_BYTES
        : Math.min(HEADER_READ_BYTES, Math.ceil((largest + HEADER_MARGIN) / 4096) * 4096),
    saw(parsed: ParsedInstance) {
      const pixels = parsed.ds.elements.x7fe00010;
      largest = Math.max(largest, pixels ? pixels.dataOffset : HEADER_READ_BYTES);
    },
  };
}

/** The DICOM JSON of a series' instances, in their order, as one JSON array. */
async function seriesJson(
  deps: SeriesMetadataDeps,
  study: StudyRow,
  series: SeriesRow,
  rows: MetadataInstance[],
): Promise<string> {
  const out: string[] = new Array<string>(rows.length);
  const wholeReads: ReadSlots = readSlots(WHOLE_READS);
  const sizer = headerSizer();
  const memo = jsonMemo();
  const base = `${DICOMWEB_ROOT}/studies/${study.studyInstanceUid}/series/${series.seriesInstanceUid}/instances/`;
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const i = next++;
      const row = rows[i]!;
      try {
        const parsed = await readInstanceMetadata(deps.storage, row, wholeReads, sizer.next());
        sizer.saw(parsed);
        out[i] = dicomJsonText(parsed, { bulkBase: base + row.sopInstanceUid }, memo);
      } catch (err) {
        // An unreadable file still appears, with what the index knows about it.
        deps.log.warn({ err: (err as Error).message, instanceId: row.id }, 'instance metadata unreadable');
        out[i] = JSON.stringify(sortTags(instanceAttributes(row, series, study)));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(METADATA_CONCURRENCY, rows.length) }, worker));
  return `[${out.join(',')}]`;
}

/**
 * A series' DICOM JSON metadata, read from its stored files once and kept (gzip) in the database
 * for the series' revision, which every change to its instances raises (modules/studies): WADO-RS
 * metadata answers it, and searches take what the index does not hold from it.
 */
export function createSeriesMetadata(deps: SeriesMetadataDeps) {
  const { repo } = deps;
  /** Series whose metadata is being built or kept right now, so concurrent requests share one build. */
  const building = new Map<string, Build>();
  const held = new HeldMetadata(HELD_BYTES);

  /**
   * repo.seriesMetadataState, without moving the cached bytes again when this process holds the
   * series' current copy.
   */
  async function metadataStateOf(
    by: { seriesId: string } | { studyId: string; seriesUid: string },
  ): Promise<SeriesMetadataState | undefined> {
    const copy = held.find(by);
    const state = await repo.seriesMetadataState(by, copy);
    if (!state) return undefined;
    if (state.held && copy) {
      held.touch(copy.seriesId);
      return { ...state, gzip: copy.gzip };
    }
    if (state.gzip) held.keep(state.series, state.gzip);
    return state;
  }

  async function parseStored(instance: InstanceRow): Promise<ParsedInstance> {
    return parseInstance(await readInstance(deps.storage, instance), instance.transferSyntaxUid);
  }

  function build(study: StudyRow, series: SeriesRow, rows: MetadataInstance[]): Build {
    const key = `${series.id}:${series.revision}`;
    const running = building.get(key);
    if (running) return running;
    const gz = seriesJson(deps, study, series, rows).then((json) => gzip(Buffer.from(json), { level: 6 }));
    void gz.then((g) => held.keep(series, g)).catch(() => undefined);
    // Kept after the answer is on its way: a request meanwhile gets it from `building`.
    const stored = gz.then((g) => repo.storeMetadata(series.id, series.revision, rows.length, g));
    const started = { gzip: gz, stored };
    building.set(key, started);
    stored
      .catch((err: unknown) => deps.log.warn({ err, seriesId: series.id }, 'series metadata not kept'))
      .finally(() => building.delete(key))
      .catch(() => undefined);
    return started;
  }

  /**
   * The series' metadata, gzip-compressed, from a state read by repo.seriesMetadataState: the
   * cached copy when current, else built once. With `stored`, resolves once the copy is kept.
   */
  async function metadataOf(
    study: StudyRow,
    state: SeriesMetadataState,
    opts: { stored?: boolean } = {},
  ): Promise<Buffer> {
    if (state.gzip) return state.gzip;
    const started = build(study, state.series, state.instances ?? []);
    const gz = await started.gzip;
    if (opts.stored) await started.stored;
    return gz;
  }

  /** The series' metadata, gzip-compressed (see metadataOf). */
  async function seriesMetadataGz(
    study: StudyRow,
    series: SeriesRow,
    opts: { stored?: boolean } = {},
  ): Promise<Buffer> {
    // A series deleted meanwhile has no instances left.
    const state = (await metadataStateOf({ seriesId: series.id })) ?? {
      series,
      gzip: null,
      instances: [],
    };
    return metadataOf(study, state, opts);
  }

  return { parseStored, metadataOf, metadataStateOf, seriesMetadataGz };
}
export type SeriesMetadata = ReturnType<typeof createSeriesMetadata>;
