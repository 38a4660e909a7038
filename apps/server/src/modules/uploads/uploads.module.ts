import type { Config } from '../../config';
import type { ObjectStorage } from '../../ports/storage/storage';
import { createUploadArea } from './upload-area';
import { createUploadLocker } from './upload-locker';
import { createUploadTokens } from './upload-token';
import { uploadRoutes } from './uploads.routes';
import { createUploadsService } from './uploads.service';

type ServiceDeps = Parameters<typeof createUploadsService>[0];
type Prescan = NonNullable<ServiceDeps['prescan']> & { close(): Promise<void> };

export interface UploadsModuleDeps<P extends Prescan> extends Pick<
  ServiceDeps,
  'auth' | 'users' | 'audit' | 'invitations'
> {
  config: Config;
  storage: ObjectStorage;
  /** The database, for one lock per upload across API nodes (upload-locker.ts). */
  database: Parameters<typeof createUploadLocker>[0];
  changes: Parameters<typeof createUploadLocker>[1];
  /** Reads file uploads while they arrive (modules/ingest/archive-prescan.ts). */
  prescan: P;
}

/** Where tus uploads land before processing, their credentials and the rules every upload passes. */
export function createUploadsModule<P extends Prescan>(deps: UploadsModuleDeps<P>) {
  const { config } = deps;
  const uploadArea = createUploadArea(config, deps.storage, deps.prescan);
  // Only uploads on local disk pass through this process's writes.
  const prescan = uploadArea.localPath ? deps.prescan : undefined;
  const tokens = createUploadTokens(config.sessionSecret);
  const uploads = createUploadsService({
    tokens,
    auth: deps.auth,
    users: deps.users,
    uploadArea,
    audit: deps.audit,
    prescan,
    defaultMaxStorageGB: config.defaultMaxStorageGB,
    invitations: deps.invitations,
    locker: createUploadLocker(deps.database, deps.changes),
  });
  return {
    uploadArea,
    prescan,
    uploads,
    routes: (app: Config) => [uploadRoutes({ uploads, config: app })],
    close: () => deps.prescan.close(),
  };
}
