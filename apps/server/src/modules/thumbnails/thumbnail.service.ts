import type { Logger } from 'pino';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession } from '../auth';
import type { RequestMeta } from '../../http/request-meta';
import type { AccessService } from '../access';
import { sessionPrincipal } from '../access';
import { readInstance, type InstanceLocation } from '../../dicom-archive/instance-location';
import { renderThumbnail } from './render-pool';
import { studyThumbnailCandidates } from './thumbnail-source';
import type { ThumbnailsRepository } from './thumbnails.repository';

/** Shown where no instance of a study can be drawn (reports, waveforms, unsupported encodings). */
export const PLACEHOLDER_SVG = Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256"><rect width="256" height="256" fill="#1f2937"/><g fill="none" stroke="#9ca3af" stroke-width="8"><rect x="64" y="72" width="128" height="112" rx="10"/><path d="M80 168l32-40 24 28 16-18 24 30"/></g><text x="128" y="216" text-anchor="middle" font-family="sans-serif" font-size="18" fill="#d1d5db">No preview</text></svg>`,
);

/** Series tried, largest first, before giving up on a picture. */
const MAX_SERIES_TRIED = 4;

interface Deps {
  repo: ThumbnailsRepository;
  storage: ObjectStorage;
  access: AccessService;
  audit: AuditRecorder;
  log: Logger;
  /** Decoded image size an instance may declare (see dicom/pixel-budget.ts). */
  maxDecodedBytes: number;
}

/**
 * Study thumbnails: the middle slice of the largest series, rendered once on the server and kept
 * until the study changes. Rendering is serialised so a page of new cards cannot saturate the CPU.
 */
export function createThumbnailService(deps: Deps) {
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  /** Middle instance of each series, largest series first. */
  async function candidates(studyId: string): Promise<InstanceLocation[]> {
    const rows = await deps.repo.instancesOfStudy(studyId);
    return studyThumbnailCandidates(rows, (r) => r.seriesId, MAX_SERIES_TRIED);
  }

  async function render(studyId: string, version: string) {
    let image: Buffer | null = null;
    let reason = 'no instance of the study has an image';
    for (const location of await candidates(studyId)) {
      try {
        image = await renderThumbnail(await readInstance(deps.storage, location), deps.maxDecodedBytes);
        break;
      } catch (err) {
        reason = `not renderable: ${(err as Error).message ?? String(err)}`.slice(0, 300);
      }
    }
    await deps.repo.save({ studyId, version, image, reason: image ? null : reason });
    if (!image) deps.log.info({ studyId, reason }, 'study has no thumbnail');
    return image;
  }

  return {
    /** The study's thumbnail (WebP), or null when it has no drawable image. */
    async get(
      auth: AuthenticatedSession,
      studyId: string,
      meta: RequestMeta,
    ): Promise<{ image: Buffer | null; version: string }> {
      const study = await deps.access.requireStudyAccess(
        sessionPrincipal(auth),
        'read',
        { id: studyId },
        meta,
      );
      const version = `${study.instanceCount}:${study.sizeBytes}:${study.updatedAt.getTime()}`;
      await deps.audit({
        actorId: auth.user.id,
        actorRole: auth.user.role,
        action: 'study.thumbnail',
        targetType: 'study',
        targetId: study.id,
        outcome: 'success',
        requestId: meta.requestId,
        ip: meta.ip,
      });
      const cached = await deps.repo.find(study.id, version);
      if (cached) return { image: cached.image, version };
      return { image: await serial(() => render(study.id, version)), version };
    },
  };
}
export type ThumbnailService = ReturnType<typeof createThumbnailService>;
