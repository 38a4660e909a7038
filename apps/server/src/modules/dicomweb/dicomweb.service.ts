import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzip as gunzipCb, gzip as gzipCb } from 'node:zlib';
import type { Logger } from 'pino';
import { AppError } from '../../http/app-error';
import type { DicomStore } from '../../ports/dicom-store/dicom-store';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { AccessService } from '../access';
import type { Principal } from '../access';
import type { AuditRecorder } from '../audit';
import type { RequestMeta } from '../../http/request-meta';
import type { DicomwebRepository, InstanceRow, SeriesRow, StudyRow } from './dicomweb.repository';
import { openInstance, readInstance, type InstanceLocation } from '../../dicom-archive/instance-location';
import { renderFitted, renderFrame, type RenderError } from '../thumbnails';
import { middleInstance, studyThumbnailCandidates } from '../thumbnails';
import { isUid } from './http-media';
import { frameMediaType, frameTransferSyntax } from '../../dicom/transfer-syntax';
import {
  bulkValue,
  DicomReadError,
  frameInfo,
  parseInstance,
  readFrame,
  toDicomJson,
  type DicomJson,
  type ParsedInstance,
} from './part10';
import { answer, parseQidoQuery, sortTags } from './qido';

const gzip = promisify(gzipCb);
const gunzip = promisify(gunzipCb);

export type { Principal } from '../access';

/** Where DICOMweb is mounted on both origins; BulkDataURIs in cached metadata are built on it. */
export const DICOMWEB_ROOT = '/dicomweb';
const NOT_FOUND = 'Not found';
/** Series whose metadata is being built right now, so concurrent requests share one build. */
const METADATA_CONCURRENCY = 8;
/** Frame reads are audited once per principal and series in this window, not once per frame. */
const FRAME_AUDIT_WINDOW_MS = 10 * 60_000;

const STUDY_DEFAULTS = new Set([
  '00080005',
  '00080020',
  '00080030',
  '00080050',
  '00080056',
  '00080061',
  '00080090',
  '00081030',
  '00100010',
  '00100020',
  '00100030',
  '00100040',
  '0020000D',
  '00200010',
  '00201206',
  '00201208',
]);
const SERIES_DEFAULTS = new Set([
  '00080005',
  '00080060',
  '0008103E',
  '0020000E',
  '00200011',
  '00201209',
  '00080056',
  '0020000D',
]);
const INSTANCE_DEFAULTS = new Set([
  '00080005',
  '00080016',
  '00080018',
  '00080056',
  '00200013',
  '0020000D',
  '0020000E',
  '00280008',
  '00280010',
  '00280011',
  '00280100',
]);

interface Deps {
  repo: DicomwebRepository;
  access: AccessService;
  storage: ObjectStorage;
  store: DicomStore;
  audit: AuditRecorder;
  log: Logger;
  /** Decoded image size an instance may declare before it is rendered (see dicom/pixel-budget.ts). */
  maxDecodedBytes: number;
}

/** An answer of the external store to a forwarded read. */
export interface ForwardedRead {
  status: number;
  contentType: string | null;
  /** Empty for an error status (the store's own body is discarded). */
  body: Readable | string;
}

const str = (vr: string, v: string | null | undefined) => (v ? { vr, Value: [v] } : { vr });
const num = (vr: string, v: number | null | undefined) =>
  v === null || v === undefined ? { vr } : { vr, Value: [v] };
const da = (v: string | null) => str('DA', v ? v.replace(/-/g, '') : null);
const pn = (v: string | null) => (v ? { vr: 'PN', Value: [{ Alphabetic: v }] } : { vr: 'PN' });

function studyAttributes(s: StudyRow): DicomJson {
  return {
    '00080005': { vr: 'CS', Value: ['ISO_IR 192'] },
    '00080020': da(s.studyDate),
    '00080030': str('TM', s.studyTime),
    '00080050': str('SH', s.accessionNumber),
    '00080056': { vr: 'CS', Value: ['ONLINE'] },
    '00080061': s.modalities.length ? { vr: 'CS', Value: [...s.modalities] } : { vr: 'CS' },
    '00080080': str('LO', s.institutionName),
    '00080090': { vr: 'PN' },
    '00081030': str('LO', s.studyDescription),
    '00100010': pn(s.patientName),
    '00100020': str('LO', s.patientId),
    '00100030': da(s.patientBirthDate),
    '00100040': str('CS', s.patientSex),
    '00101010': str('AS', s.patientAge),
    '00180015': str('CS', s.bodyPart),
    '0020000D': str('UI', s.studyInstanceUid),
    '00200010': { vr: 'SH' },
    '00201206': num('IS', s.seriesCount),
    '00201208': num('IS', s.instanceCount),
  };
}

function seriesAttributes(se: SeriesRow, s: StudyRow): DicomJson {
  return {
    ...studyAttributes(s),
    '00080060': str('CS', se.modality),
    '0008103E': str('LO', se.seriesDescription),
    '00180015': str('CS', se.bodyPart ?? s.bodyPart),
    '0020000E': str('UI', se.seriesInstanceUid),
    '00200011': num('IS', se.seriesNumber),
    '00201209': num('IS', se.instanceCount),
  };
}

function instanceAttributes(i: InstanceRow, se: SeriesRow, s: StudyRow): DicomJson {
  return {
    ...seriesAttributes(se, s),
    '00080016': str('UI', i.sopClassUid),
    '00080018': str('UI', i.sopInstanceUid),
    '00083002': str('UI', i.transferSyntaxUid),
    '00200013': num('IS', i.instanceNumber),
  };
}

const matchableOf = (attrs: DicomJson) => new Set(Object.keys(attrs));
const STUDY_MATCHABLE = matchableOf(studyAttributes({ modalities: [] } as unknown as StudyRow));
const SERIES_MATCHABLE = new Set([
  ...STUDY_MATCHABLE,
  '00080060',
  '0008103E',
  '0020000E',
  '00200011',
  '00201209',
]);
const INSTANCE_MATCHABLE = new Set([...SERIES_MATCHABLE, '00080016', '00080018', '00083002', '00200013']);

/** A rendering failure as the caller sees it: a missing frame, or an instance that is no image. */
function renderFailed(err: unknown): AppError {
  if ((err as RenderError).noSuchFrame) return new AppError('NOT_FOUND', 'The instance has no such frame');
  return new AppError('UNPROCESSABLE', 'This instance cannot be rendered as an image');
}

function requireUid(v: string, what: string): string {
  if (!isUid(v)) throw new AppError('BAD_REQUEST', `Malformed ${what} UID`);
  return v;
}

/** DICOMweb over the studies we store: QIDO-RS, WADO-RS and WADO-URI, each behind the access check. */
export function createDicomwebService(deps: Deps) {
  const { repo } = deps;
  const building = new Map<string, Promise<Buffer>>();
  const frameAudits = new Map<string, number>();

  async function audit(
    p: Principal,
    meta: RequestMeta,
    action: string,
    studyId: string | null,
    outcome: 'success' | 'denied',
    details?: Record<string, unknown>,
  ) {
    await deps.audit({
      actorId: p.userId,
      actorRole: p.role,
      action: `dicomweb.${action}`,
      targetType: 'study',
      targetId: studyId,
      outcome,
      requestId: meta.requestId,
      ip: meta.ip,
      // A vendor's reads name the order its credential serves; the actor is the vendor's provider.
      details: { via: p.via, ...(p.vendor ? { orderId: p.vendor.orderId } : {}), ...details },
    });
  }

  /** Studies the principal may see (the access module decides; a grant narrows to one). */
  function visibleStudies(p: Principal): Promise<StudyRow[]> {
    return deps.access.visibleStudies(p);
  }

  /** The study behind a request, through the one access check (a malformed UID is a 404 too). */
  function resolveStudy(
    p: Principal,
    studyUid: string,
    meta: RequestMeta,
    action: string,
  ): Promise<StudyRow> {
    return deps.access.requireStudyAccess(p, 'read', { uid: studyUid }, meta, {
      auditAction: `dicomweb.${action}`,
      notFoundMessage: NOT_FOUND,
    });
  }

  async function resolveSeries(
    p: Principal,
    studyUid: string,
    seriesUid: string,
    meta: RequestMeta,
    action: string,
  ) {
    requireUid(seriesUid, 'series');
    const study = await resolveStudy(p, studyUid, meta, action);
    const se = await repo.seriesByUid(study.id, seriesUid);
    if (!se) {
      await audit(p, meta, action, study.id, 'denied', { seriesInstanceUid: seriesUid });
      throw new AppError('NOT_FOUND', NOT_FOUND);
    }
    return { study, series: se };
  }

  async function resolveInstance(
    p: Principal,
    studyUid: string,
    seriesUid: string,
    sopUid: string,
    meta: RequestMeta,
    action: string,
  ) {
    requireUid(sopUid, 'instance');
    const { study, series } = await resolveSeries(p, studyUid, seriesUid, meta, action);
    const instance = await repo.instanceByUid(study.id, series.id, sopUid);
    if (!instance) {
      await audit(p, meta, action, study.id, 'denied', { sopInstanceUid: sopUid });
      throw new AppError('NOT_FOUND', NOT_FOUND);
    }
    return { study, series, instance };
  }

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
    let next = 0;
    const worker = async () => {
      while (next < rows.length) {
        const i = next++;
        const row = rows[i]!;
        let json: DicomJson;
        try {
          json = toDicomJson(await parseStored(row), {
            bulkBase: instanceBase(study, series, row.sopInstanceUid),
          });
        } catch (err) {
          // An unreadable file still appears, with what the index knows about it.
          deps.log.warn({ err: (err as Error).message, instanceId: row.id }, 'instance metadata unreadable');
          json = instanceAttributes(row, series, study);
        }
        out[i] = JSON.stringify(sortTags(json));
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
    const auditKey = `${p.via}:${p.userId}:${p.studyId ?? ''}:${r.series.id}:${action}`;
    const last = frameAudits.get(auditKey) ?? 0;
    if (Date.now() - last > FRAME_AUDIT_WINDOW_MS) {
      frameAudits.set(auditKey, Date.now());
      if (frameAudits.size > 10_000) frameAudits.clear();
      await audit(p, meta, action, r.study.id, 'success', { seriesInstanceUid: seriesUid });
    }
    return { ...r, parsed: await parseStored(r.instance) };
  }

  return {
    resolveStudy,
    resolveSeries,
    resolveInstance,

    /** Builds the metadata of every series of a study ahead of the first view. */
    async prepareStudy(studyId: string): Promise<void> {
      const study = await repo.findStudy(studyId);
      if (!study) return;
      for (const se of await repo.seriesOf([study.id])) await seriesMetadataGz(study, se);
    },

    async searchStudies(
      p: Principal,
      query: Record<string, string | string[] | undefined>,
      meta: RequestMeta,
    ) {
      const q = parseQidoQuery(query, STUDY_MATCHABLE);
      const rows = (await visibleStudies(p)).map(studyAttributes);
      const result = answer(rows, q, STUDY_DEFAULTS);
      await audit(p, meta, 'search_studies', p.studyId, 'success', { results: result.length });
      return { result, unsupported: q.unsupported };
    },

    async searchSeries(
      p: Principal,
      query: Record<string, string | string[] | undefined>,
      meta: RequestMeta,
      studyUid?: string,
    ) {
      const q = parseQidoQuery(query, SERIES_MATCHABLE);
      const studies = studyUid
        ? [await resolveStudy(p, studyUid, meta, 'search_series')]
        : await visibleStudies(p);
      const byId = new Map(studies.map((s) => [s.id, s]));
      const rows = (await repo.seriesOf(studies.map((s) => s.id))).map((se) =>
        seriesAttributes(se, byId.get(se.studyId)!),
      );
      const result = answer(
        rows,
        q,
        studyUid ? new Set([...SERIES_DEFAULTS].filter((t) => t !== '0020000D')) : SERIES_DEFAULTS,
      );
      await audit(p, meta, 'search_series', studies.length === 1 ? studies[0]!.id : p.studyId, 'success', {
        results: result.length,
      });
      return { result, unsupported: q.unsupported };
    },

    async searchInstances(
      p: Principal,
      query: Record<string, string | string[] | undefined>,
      meta: RequestMeta,
      studyUid?: string,
      seriesUid?: string,
    ) {
      const q = parseQidoQuery(query, INSTANCE_MATCHABLE);
      let studies: StudyRow[];
      let seriesRows: SeriesRow[];
      if (studyUid && seriesUid) {
        const r = await resolveSeries(p, studyUid, seriesUid, meta, 'search_instances');
        studies = [r.study];
        seriesRows = [r.series];
      } else {
        studies = studyUid
          ? [await resolveStudy(p, studyUid, meta, 'search_instances')]
          : await visibleStudies(p);
        seriesRows = await repo.seriesOf(studies.map((s) => s.id));
      }
      const studyById = new Map(studies.map((s) => [s.id, s]));
      const seriesById = new Map(seriesRows.map((s) => [s.id, s]));
      const instances = await repo.instancesOfSeries(seriesRows.map((s) => s.id));
      const rows = instances.map((i) =>
        instanceAttributes(i, seriesById.get(i.seriesId)!, studyById.get(i.studyId)!),
      );
      // Fields the index does not hold come from the series metadata (computed once, cached).
      const wanted =
        q.includeAll ||
        [...q.includeFields].some((t) => !INSTANCE_MATCHABLE.has(t)) ||
        [...INSTANCE_DEFAULTS].some((t) => !INSTANCE_MATCHABLE.has(t));
      const full = new Map<string, DicomJson>();
      if (wanted) {
        for (const se of seriesRows) {
          const gz = await seriesMetadataGz(studyById.get(se.studyId)!, se);
          for (const item of JSON.parse((await gunzip(gz)).toString('utf8')) as DicomJson[]) {
            const sop = item['00080018']?.Value?.[0];
            if (typeof sop === 'string') full.set(`${se.id}|${sop}`, item);
          }
        }
      }
      const keyOf = new Map(
        rows.map((r, i) => [r, `${instances[i]!.seriesId}|${instances[i]!.sopInstanceUid}`]),
      );
      const result = answer(rows, q, INSTANCE_DEFAULTS, (row) => {
        const extra = full.get(keyOf.get(row)!) ?? {};
        // The index is authoritative for what it holds; the file adds the rest.
        return Object.fromEntries(Object.entries(extra).filter(([t, v]) => !(t in row) && !v.BulkDataURI));
      });
      await audit(p, meta, 'search_instances', studies.length === 1 ? studies[0]!.id : p.studyId, 'success', {
        results: result.length,
      });
      return { result, unsupported: q.unsupported };
    },

    /** Series metadata as stored in the cache (gzip). */
    async seriesMetadata(
      p: Principal,
      studyUid: string,
      seriesUid: string,
      meta: RequestMeta,
    ): Promise<Buffer> {
      const { study, series } = await resolveSeries(p, studyUid, seriesUid, meta, 'metadata');
      const gz = await seriesMetadataGz(study, series);
      await audit(p, meta, 'metadata', study.id, 'success', { level: 'series' });
      return gz;
    },

    async studyMetadata(p: Principal, studyUid: string, meta: RequestMeta): Promise<Buffer> {
      const study = await resolveStudy(p, studyUid, meta, 'metadata');
      const parts: string[] = [];
      for (const se of await repo.seriesOf([study.id])) {
        const text = (await gunzip(await seriesMetadataGz(study, se))).toString('utf8').trim();
        if (text.length > 2) parts.push(text.slice(1, -1));
      }
      await audit(p, meta, 'metadata', study.id, 'success', { level: 'study' });
      return gzip(Buffer.from(`[${parts.join(',')}]`), { level: 1 });
    },

    async instanceMetadata(
      p: Principal,
      studyUid: string,
      seriesUid: string,
      sopUid: string,
      meta: RequestMeta,
    ): Promise<DicomJson[]> {
      const { study, series } = await resolveInstance(p, studyUid, seriesUid, sopUid, meta, 'metadata');
      const all = JSON.parse(
        (await gunzip(await seriesMetadataGz(study, series))).toString('utf8'),
      ) as DicomJson[];
      await audit(p, meta, 'metadata', study.id, 'success', { level: 'instance' });
      return all.filter((i) => i['00080018']?.Value?.[0] === sopUid);
    },

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

    /**
     * The instance a thumbnail of a study, series or instance is drawn from: the instance itself,
     * the middle instance of a series, or the middle instance of a study's largest series.
     */
    async thumbnailSource(
      p: Principal,
      meta: RequestMeta,
      studyUid: string,
      seriesUid?: string,
      sopUid?: string,
    ): Promise<InstanceRow> {
      let study: StudyRow;
      let row: InstanceRow | undefined;
      if (sopUid && seriesUid) {
        const r = await resolveInstance(p, studyUid, seriesUid, sopUid, meta, 'thumbnail');
        study = r.study;
        row = r.instance;
      } else {
        if (seriesUid) {
          const r = await resolveSeries(p, studyUid, seriesUid, meta, 'thumbnail');
          study = r.study;
          row = middleInstance(await repo.instancesOfSeries([r.series.id]));
        } else {
          study = await resolveStudy(p, studyUid, meta, 'thumbnail');
          row = studyThumbnailCandidates(await repo.instancesOfStudy(study.id), (i) => i.seriesUid, 1)[0];
        }
      }
      if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
      await audit(p, meta, 'thumbnail', study.id, 'success', {
        level: sopUid ? 'instance' : seriesUid ? 'series' : 'study',
      });
      return row;
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
    },

    /** One frame (0-based) of an instance, drawn at full size. */
    async renderFrame(location: InstanceLocation, frame: number, format: 'jpeg' | 'png'): Promise<Buffer> {
      try {
        return await renderFrame(
          await readInstance(deps.storage, location),
          frame,
          format,
          deps.maxDecodedBytes,
        );
      } catch (err) {
        throw renderFailed(err);
      }
    },

    /** One frame (0-based; the middle one when undefined) of an instance, scaled to fit width × height. */
    async renderFitted(
      location: InstanceLocation,
      frame: number | undefined,
      format: 'jpeg' | 'png',
      width: number,
      height: number,
    ): Promise<Buffer> {
      try {
        return await renderFitted(
          await readInstance(deps.storage, location),
          frame,
          format,
          width,
          height,
          deps.maxDecodedBytes,
        );
      } catch (err) {
        throw renderFailed(err);
      }
    },

    /** Whether reads are answered by an external DICOMweb store (DICOMWEB_URL) after our access check. */
    forwarding: deps.store.kind === 'dicomweb' && Boolean(deps.store.forward),

    /**
     * A WADO-RS read answered by the external store (path below DICOMWEB_ROOT, query included). The
     * store's bulk data links in metadata point at itself; they are pointed back at us, since the
     * viewer may only talk to us.
     */
    async forward(pathAndQuery: string, accept: string | undefined): Promise<ForwardedRead> {
      const res = await deps.store.forward!(pathAndQuery, accept);
      if (res.status >= 400) {
        res.body.resume();
        return { status: res.status, contentType: res.contentType, body: '' };
      }
      if (res.contentType?.includes('json') && /\/metadata$/.test(pathAndQuery.split('?')[0]!)) {
        const chunks: Buffer[] = [];
        for await (const c of res.body) chunks.push(c as Buffer);
        const text = Buffer.concat(chunks).toString('utf8').split(deps.store.root!).join(DICOMWEB_ROOT);
        return { status: res.status, contentType: res.contentType, body: text };
      }
      return res;
    },

    /** For the external store: the access check and audit, before the read is forwarded. */
    async authorizeForward(
      p: Principal,
      meta: RequestMeta,
      studyUid: string,
      seriesUid?: string,
      sopUid?: string,
    ) {
      const study =
        sopUid && seriesUid
          ? (await resolveInstance(p, studyUid, seriesUid, sopUid, meta, 'forward')).study
          : seriesUid
            ? (await resolveSeries(p, studyUid, seriesUid, meta, 'forward')).study
            : await resolveStudy(p, studyUid, meta, 'forward');
      await audit(p, meta, 'forward', study.id, 'success', {
        level: sopUid ? 'instance' : seriesUid ? 'series' : 'study',
      });
      return study;
    },
    audit,
  };
}
export type DicomwebService = ReturnType<typeof createDicomwebService>;
