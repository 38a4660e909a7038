import type { Readable } from 'node:stream';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import { openInstance, readInstance, type InstanceLocation } from '../../dicom-archive/instance-location';
import { frameMediaType, frameTransferSyntax } from '../../dicom/transfer-syntax';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { Principal } from '../access';
import type { DicomwebAccess } from './dicomweb-access';
import type { DicomwebRepository, InstanceRow, StudyRow } from './dicomweb.repository';
import { bulkValue, DicomReadError, frameInfo, readFrame, type ParsedInstance } from './part10';
import type { SeriesMetadata } from './series-metadata';

/** The frames (numbers from 1) of a parsed instance as WADO-RS delivers them; 404 when it has not those. */
function framesOf(parsed: ParsedInstance, numbers: number[]) {
  const info = frameInfo(parsed);
  if (!info) throw new AppError('NOT_FOUND', 'The instance has no frames');
  if (numbers.some((n) => n > info.count))
    throw new AppError('NOT_FOUND', `The instance has ${info.count} frame(s)`);
  const transferSyntax = frameTransferSyntax(parsed.transferSyntaxUid);
  return {
    transferSyntax,
    mediaType: frameMediaType(transferSyntax),
    read(): Uint8Array[] {
      try {
        return numbers.map((n) => readFrame(parsed, n - 1));
      } catch (err) {
        if (err instanceof DicomReadError)
          throw new AppError('UNPROCESSABLE', `This frame cannot be read: ${err.message}`);
        throw err;
      }
    },
  };
}

/** One bulk data value of a parsed instance; 404 when it has none, 422 when cut short. */
function bulkOf(parsed: ParsedInstance, tag: string): { value: Uint8Array; transferSyntax: string } {
  let value: Uint8Array | null;
  try {
    value = bulkValue(parsed, tag);
  } catch (err) {
    if (err instanceof DicomReadError)
      throw new AppError('UNPROCESSABLE', `This value cannot be read: ${err.message}`);
    throw err;
  }
  if (!value) throw new AppError('NOT_FOUND', 'The instance has no such value');
  return { value, transferSyntax: frameTransferSyntax(parsed.transferSyntaxUid) };
}

export interface DicomwebRetrievalDeps {
  repo: Pick<DicomwebRepository, 'instancesOfSeries' | 'instancesOfStudy'>;
  access: DicomwebAccess;
  metadata: Pick<SeriesMetadata, 'parseStored'>;
  storage: ObjectStorage;
}

/** WADO-RS and WADO-URI: whole instances, frames and bulk data, each behind the access check. */
export function createDicomwebRetrieval(deps: DicomwebRetrievalDeps) {
  const { repo } = deps;
  const { audit, auditSeriesRead, resolveStudy, resolveSeries, resolveInstance } = deps.access;
  const { parseStored } = deps.metadata;

  /** The parsed stored file of one instance, for frames and bulk data. */
  async function parsedInstance(
    p: Principal,
    meta: RequestMeta,
    studyUid: string,
    seriesUid: string,
    sopUid: string,
    action: 'frames' | 'bulkdata',
  ) {
    const r = await resolveInstance(p, studyUid, seriesUid, sopUid, meta, action);
    await auditSeriesRead(p, meta, action, r.study, r.series);
    return { ...r, parsed: await parseStored(r.instance) };
  }

  return {
    /** Instances to return for a study, series or instance retrieval, in a stable order. */
    async instancesFor(
      p: Principal,
      meta: RequestMeta,
      studyUid: string,
      seriesUid?: string,
      sopUid?: string,
    ) {
      let study: StudyRow;
      let rows: Array<InstanceRow & { seriesUid: string }>;
      if (sopUid && seriesUid) {
        const r = await resolveInstance(p, studyUid, seriesUid, sopUid, meta, 'retrieve');
        study = r.study;
        rows = [{ ...r.instance, seriesUid: r.series.seriesInstanceUid }];
      } else if (seriesUid) {
        const r = await resolveSeries(p, studyUid, seriesUid, meta, 'retrieve');
        study = r.study;
        rows = (await repo.instancesOfSeries([r.series.id])).map((i) => ({
          ...i,
          seriesUid: r.series.seriesInstanceUid,
        }));
      } else {
        study = await resolveStudy(p, studyUid, meta, 'retrieve');
        rows = await repo.instancesOfStudy(study.id);
      }
      await audit(p, meta, 'retrieve', study.id, 'success', {
        level: sopUid ? 'instance' : seriesUid ? 'series' : 'study',
        instances: rows.length,
      });
      return { study, rows };
    },

    open(location: InstanceLocation): Promise<Readable> {
      return openInstance(deps.storage, location);
    },

    read(location: InstanceLocation): Promise<Uint8Array> {
      return readInstance(deps.storage, location);
    },

    parsedInstance,

    /**
     * Frames of an instance (numbers from 1) as WADO-RS delivers them: the stored codestreams, or
     * native data in little endian. 404 for an instance without those frames; the frames are read
     * by `read()`, which answers 422 for a frame the stored file does not hold whole.
     */
    async frames(
      p: Principal,
      meta: RequestMeta,
      studyUid: string,
      seriesUid: string,
      sopUid: string,
      numbers: number[],
    ) {
      const { parsed } = await parsedInstance(p, meta, studyUid, seriesUid, sopUid, 'frames');
      return framesOf(parsed, numbers);
    },

    /** One bulk data value of an instance (the BulkDataURI of its metadata); 404 when it has none, 422 when cut short. */
    async bulkData(
      p: Principal,
      meta: RequestMeta,
      studyUid: string,
      seriesUid: string,
      sopUid: string,
      tag: string,
    ): Promise<{ value: Uint8Array; transferSyntax: string }> {
      const { parsed } = await parsedInstance(p, meta, studyUid, seriesUid, sopUid, 'bulkdata');
      return bulkOf(parsed, tag);
    },
  };
}
export type DicomwebRetrieval = ReturnType<typeof createDicomwebRetrieval>;
