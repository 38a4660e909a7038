import { promisify } from 'node:util';
import { gunzip as gunzipCb } from 'node:zlib';
import type { RequestMeta } from '../../http/request-meta';
import type { Principal } from '../access';
import {
  INSTANCE_DEFAULTS,
  INSTANCE_MATCHABLE,
  SERIES_DEFAULTS,
  SERIES_MATCHABLE,
  STUDY_DEFAULTS,
  STUDY_MATCHABLE,
  instanceAttributes,
  seriesAttributes,
  studyAttributes,
} from './dicom-json';
import type { DicomwebAccess } from './dicomweb-access';
import type { DicomwebRepository, SeriesRow, StudyRow } from './dicomweb.repository';
import type { DicomJson } from './part10';
import { answer, parseQidoQuery, type QidoQuery } from './qido';
import type { SeriesMetadata } from './series-metadata';

const gunzip = promisify(gunzipCb);

type Query = Record<string, string | string[] | undefined>;

export interface DicomwebSearchDeps {
  repo: Pick<DicomwebRepository, 'seriesOf' | 'instancesOfSeries'>;
  access: DicomwebAccess;
  metadata: Pick<SeriesMetadata, 'seriesMetadataGz'>;
}

/**
 * Fields the index does not hold come from the series metadata (computed once, cached): each
 * instance's full DICOM JSON by `seriesId|sopInstanceUid`, read only when the query needs it.
 */
async function fileFields(
  metadata: DicomwebSearchDeps['metadata'],
  q: QidoQuery,
  studyById: Map<string, StudyRow>,
  seriesRows: SeriesRow[],
) {
  const wanted =
    q.includeAll ||
    [...q.includeFields].some((t) => !INSTANCE_MATCHABLE.has(t)) ||
    [...INSTANCE_DEFAULTS].some((t) => !INSTANCE_MATCHABLE.has(t));
  const full = new Map<string, DicomJson>();
  if (!wanted) return full;
  for (const se of seriesRows) {
    const gz = await metadata.seriesMetadataGz(studyById.get(se.studyId)!, se);
    for (const item of JSON.parse((await gunzip(gz)).toString('utf8')) as DicomJson[]) {
      const sop = item['00080018']?.Value?.[0];
      if (typeof sop === 'string') full.set(`${se.id}|${sop}`, item);
    }
  }
  return full;
}

/** QIDO-RS: studies, series and instances the principal may see, matched and answered in DICOM JSON. */
export function createDicomwebSearch(deps: DicomwebSearchDeps) {
  const { repo } = deps;
  const { audit, visibleStudies, resolveStudy, resolveSeries } = deps.access;

  /** The studies and series an instance search covers: one series, one study's, or all visible. */
  async function instanceScope(
    p: Principal,
    meta: RequestMeta,
    studyUid: string | undefined,
    seriesUid: string | undefined,
  ): Promise<{ studies: StudyRow[]; seriesRows: SeriesRow[] }> {
    if (studyUid && seriesUid) {
      const r = await resolveSeries(p, studyUid, seriesUid, meta, 'search_instances');
      return { studies: [r.study], seriesRows: [r.series] };
    }
    const studies = studyUid
      ? [await resolveStudy(p, studyUid, meta, 'search_instances')]
      : await visibleStudies(p);
    return { studies, seriesRows: await repo.seriesOf(studies.map((s) => s.id)) };
  }

  return {
    async searchStudies(p: Principal, query: Query, meta: RequestMeta) {
      const q = parseQidoQuery(query, STUDY_MATCHABLE);
      const rows = (await visibleStudies(p)).map(studyAttributes);
      const result = answer(rows, q, STUDY_DEFAULTS);
      await audit(p, meta, 'search_studies', p.studyId, 'success', { results: result.length });
      return { result, unsupported: q.unsupported };
    },

    async searchSeries(p: Principal, query: Query, meta: RequestMeta, studyUid?: string) {
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
      query: Query,
      meta: RequestMeta,
      studyUid?: string,
      seriesUid?: string,
    ) {
      const q = parseQidoQuery(query, INSTANCE_MATCHABLE);
      const { studies, seriesRows } = await instanceScope(p, meta, studyUid, seriesUid);
      const studyById = new Map(studies.map((s) => [s.id, s]));
      const seriesById = new Map(seriesRows.map((s) => [s.id, s]));
      const instances = await repo.instancesOfSeries(seriesRows.map((s) => s.id));
      const rows = instances.map((i) =>
        instanceAttributes(i, seriesById.get(i.seriesId)!, studyById.get(i.studyId)!),
      );
      const full = await fileFields(deps.metadata, q, studyById, seriesRows);
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
  };
}
export type DicomwebSearch = ReturnType<typeof createDicomwebSearch>;
