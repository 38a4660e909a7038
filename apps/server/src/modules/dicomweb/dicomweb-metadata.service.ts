import { promisify } from 'node:util';
import { gunzip as gunzipCb, gzip as gzipCb } from 'node:zlib';
import type { RequestMeta } from '../../http/request-meta';
import type { Principal } from '../access';
import type { DicomwebAccess } from './dicomweb-access';
import type { DicomwebRepository } from './dicomweb.repository';
import type { DicomJson } from './part10';
import type { SeriesMetadata } from './series-metadata';

const gzip = promisify(gzipCb);
const gunzip = promisify(gunzipCb);

export interface DicomwebMetadataDeps {
  repo: Pick<DicomwebRepository, 'findStudy' | 'seriesOf'>;
  access: DicomwebAccess;
  metadata: Pick<SeriesMetadata, 'seriesMetadataGz' | 'metadataOf' | 'metadataStateOf'>;
}

/** WADO-RS metadata of a study, series or instance, from the series metadata kept by series-metadata.ts. */
export function createDicomwebMetadata(deps: DicomwebMetadataDeps) {
  const { repo } = deps;
  const { audit, auditSeriesRead, resolveStudy, resolveSeriesBy, resolveInstance } = deps.access;
  const { seriesMetadataGz, metadataOf, metadataStateOf } = deps.metadata;

  return {
    /** Builds the metadata of every series of a study ahead of the first view. */
    async prepareStudy(studyId: string): Promise<void> {
      const study = await repo.findStudy(studyId);
      if (!study) return;
      for (const se of await repo.seriesOf([study.id])) await seriesMetadataGz(study, se, { stored: true });
    },

    /** Series metadata as stored in the cache (gzip). */
    async seriesMetadata(
      p: Principal,
      studyUid: string,
      seriesUid: string,
      meta: RequestMeta,
    ): Promise<Buffer> {
      // The series, and its cached metadata or instances, in one query.
      const { study, series: state } = await resolveSeriesBy(
        p,
        studyUid,
        seriesUid,
        meta,
        'metadata',
        (studyId, uid) => metadataStateOf({ studyId, seriesUid: uid }),
      );
      const gz = await metadataOf(study, state);
      // A viewer asks for a series' metadata again on every open: audited like its frames.
      await auditSeriesRead(p, meta, 'metadata', study, state.series, { level: 'series' });
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
  };
}
export type DicomwebMetadata = ReturnType<typeof createDicomwebMetadata>;
