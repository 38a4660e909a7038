import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import { readInstance, type InstanceLocation } from '../../dicom-archive/instance-location';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { Principal } from '../access';
import {
  middleInstance,
  renderFitted,
  renderFrame,
  studyThumbnailCandidates,
  type RenderError,
} from '../thumbnails';
import { NOT_FOUND, type DicomwebAccess } from './dicomweb-access';
import type { DicomwebRepository, InstanceRow, StudyRow } from './dicomweb.repository';

/** A rendering failure as the caller sees it: a missing frame, or an instance that is no image. */
function renderFailed(err: unknown): AppError {
  if ((err as RenderError).noSuchFrame) return new AppError('NOT_FOUND', 'The instance has no such frame');
  return new AppError('UNPROCESSABLE', 'This instance cannot be rendered as an image');
}

export interface DicomwebRenderingDeps {
  repo: Pick<DicomwebRepository, 'instancesOfSeries' | 'instancesOfStudy'>;
  access: DicomwebAccess;
  storage: ObjectStorage;
  /** Decoded image size an instance may declare before it is rendered (see dicom/pixel-budget.ts). */
  maxDecodedBytes: number;
}

/** Rendered images (thumbnails, WADO-RS rendered, WADO-URI JPEG) of what the principal may read. */
export function createDicomwebRendering(deps: DicomwebRenderingDeps) {
  const { repo } = deps;
  const { audit, resolveStudy, resolveSeries, resolveInstance } = deps.access;

  return {
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
  };
}
export type DicomwebRendering = ReturnType<typeof createDicomwebRendering>;
