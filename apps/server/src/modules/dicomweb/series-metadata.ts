import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import type { Logger } from 'pino';
import { readInstance } from '../../dicom-archive/instance-location';
import type { ObjectStorage } from '../../ports/storage/storage';
import { instanceAttributes } from './dicom-json';
import { DICOMWEB_ROOT } from './dicomweb-access';
import { readInstanceMetadata, readSlots } from './instance-header';
import type { DicomwebRepository, InstanceRow, SeriesRow, StudyRow } from './dicomweb.repository';
import { parseInstance, toDicomJson, type DicomJson, type ParsedInstance } from './part10';
import { sortTags } from './qido';

const gzip = promisify(gzipCb);

/**
 * How many of a series' files are being read at once while its metadata is built: mostly the
 * first few KiB of each (readInstanceMetadata), so storage latency overlaps the parsing.
 */
const METADATA_CONCURRENCY = 16;
/** How many of them may be read whole at once (files whose header alone does not describe them). */
const WHOLE_READS = 8;

export interface SeriesMetadataDeps {
  repo: Pick<DicomwebRepository, 'instancesOfSeries' | 'storeMetadata' | 'seriesVersion' | 'cachedMetadata'>;
  storage: ObjectStorage;
  log: Logger;
}

/**
 * A series' DICOM JSON metadata, read from its stored files once and kept (gzip) until the series
 * changes: WADO-RS metadata answers it, and searches take what the index does not hold from it.
 */
export function createSeriesMetadata(deps: SeriesMetadataDeps) {
  const { repo } = deps;
  /** Series whose metadata is being built right now, so concurrent requests share one build. */
  const building = new Map<string, Promise<Buffer>>();

  async function parseStored(instance: InstanceRow): Promise<ParsedInstance> {
    return parseInstance(await readInstance(deps.storage, instance), instance.transferSyntaxUid);
  }

  function instanceBase(study: StudyRow, series: SeriesRow, sopUid: string) {
    return `${DICOMWEB_ROOT}/studies/${study.studyInstanceUid}/series/${series.seriesInstanceUid}/instances/${sopUid}`;
  }

  async function buildSeriesMetadata(
    study: StudyRow,
    series: SeriesRow,
    version: string,
    count: number,
  ): Promise<Buffer> {
    const rows = await repo.instancesOfSeries([series.id]);
    const out: string[] = new Array(rows.length);
    const wholeReads = readSlots(WHOLE_READS);
    let next = 0;
    const worker = async () => {
      while (next < rows.length) {
        const i = next++;
        const row = rows[i]!;
        let json: DicomJson;
        try {
          // Already in tag order.
          json = toDicomJson(await readInstanceMetadata(deps.storage, row, wholeReads), {
            bulkBase: instanceBase(study, series, row.sopInstanceUid),
          });
        } catch (err) {
          // An unreadable file still appears, with what the index knows about it.
          deps.log.warn({ err: (err as Error).message, instanceId: row.id }, 'instance metadata unreadable');
          json = sortTags(instanceAttributes(row, series, study));
        }
        out[i] = JSON.stringify(json);
      }
    };
    await Promise.all(Array.from({ length: Math.min(METADATA_CONCURRENCY, rows.length) }, worker));
    const gz = await gzip(Buffer.from(`[${out.join(',')}]`), { level: 6 });
    await repo.storeMetadata(series.id, version, count, gz);
    return gz;
  }

  /** The series' metadata, gzip-compressed: from the cache when it matches what is stored, else built once. */
  async function seriesMetadataGz(study: StudyRow, series: SeriesRow): Promise<Buffer> {
    const { version, count } = await repo.seriesVersion(series.id);
    const cached = await repo.cachedMetadata(series.id);
    if (cached && cached.version === version) return cached.gzip;
    const key = `${series.id}:${version}`;
    let pending = building.get(key);
    if (!pending) {
      pending = buildSeriesMetadata(study, series, version, count).finally(() => building.delete(key));
      building.set(key, pending);
    }
    return pending;
  }

  return { parseStored, seriesMetadataGz };
}
export type SeriesMetadata = ReturnType<typeof createSeriesMetadata>;
