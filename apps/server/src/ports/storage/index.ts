import path from 'node:path';
import { FsObjectStorage } from './fs-storage';
import { S3ObjectStorage, type S3StorageConfig } from './s3-storage';
import type { ObjectStorage } from './storage';

export { FsObjectStorage } from './fs-storage';
export { S3ObjectStorage, type S3StorageConfig } from './s3-storage';
export * from './storage';

export interface ObjectStorageConfig {
  dataDir: string;
  s3?: S3StorageConfig | undefined;
}

/** S3 when configured, otherwise files under `<dataDir>/storage`. */
export function createObjectStorage(cfg: ObjectStorageConfig): ObjectStorage {
  return cfg.s3 ? new S3ObjectStorage(cfg.s3) : new FsObjectStorage(path.join(cfg.dataDir, 'storage'));
}
