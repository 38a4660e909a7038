// modules/links: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { createLinksRepository, type LinksRepository } from './links.repository';
export { type DownloadRoute, linksRoutes, shlRoutes } from './links.routes';
export { type BundleBuilder, createLinksService, type LinksService } from './links.service';
export { createLinksModule } from './links.module';
