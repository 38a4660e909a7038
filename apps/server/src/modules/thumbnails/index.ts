// modules/thumbnails: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { closeRenderPool, RenderError, renderFitted, renderFrame } from './render-pool';
export { middleInstance, studyThumbnailCandidates } from './thumbnail-source';
export { createThumbnailService, type ThumbnailService } from './thumbnail.service';
export { createThumbnailsRepository } from './thumbnails.repository';
export { thumbnailRoutes } from './thumbnails.routes';
export { createThumbnailsModule } from './thumbnails.module';
