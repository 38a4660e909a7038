// modules/uploads: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export {
  createUploadArea,
  type RangeReader,
  type UploadArea,
  type UploadWriteObserver,
  type UploadWriteScan,
} from './upload-area';
export { createUploadLocker } from './upload-locker';
export { OBJECT_NAME } from './upload-paths';
export { createUploadTokens, type UploadTokens } from './upload-token';
export { uploadRoutes } from './uploads.routes';
export { createUploadsService, type UploadsService } from './uploads.service';
export { createUploadsModule } from './uploads.module';
