import type { Config } from '../../config';
import { closeRenderPool } from './render-pool';
import { createThumbnailService } from './thumbnail.service';
import { createThumbnailsRepository } from './thumbnails.repository';
import { thumbnailRoutes } from './thumbnails.routes';

type ServiceDeps = Parameters<typeof createThumbnailService>[0];

export interface ThumbnailsModuleDeps extends Pick<ServiceDeps, 'storage' | 'access' | 'audit' | 'log'> {
  db: Parameters<typeof createThumbnailsRepository>[0];
  config: Pick<Config, 'dicomMaxDecodedBytes'>;
}

/** Study and series thumbnails, rendered in a worker pool. */
export function createThumbnailsModule({ db, config, storage, access, audit, log }: ThumbnailsModuleDeps) {
  const thumbnails = createThumbnailService({
    repo: createThumbnailsRepository(db),
    storage,
    access,
    audit,
    log,
    maxDecodedBytes: config.dicomMaxDecodedBytes,
  });
  return { thumbnails, routes: () => [thumbnailRoutes(thumbnails)], close: closeRenderPool };
}
