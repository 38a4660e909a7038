import type { Config } from '../../config';
import { DEFAULT_ZIP_LIMITS, type ZipLimits } from '../../dicom-archive/zip-reader';
import type { ArchivePrescan } from './archive-prescan';
import { processStudyJob } from './process-study.job';
import { sweepUploadsJob } from './sweep-uploads.job';

type JobDeps = Parameters<typeof processStudyJob>[0];

export interface IngestModuleDeps extends Pick<JobDeps, 'storage' | 'uploadArea' | 'users' | 'mail'> {
  /** The studies repository (modules/studies). */
  studiesRepo: JobDeps['repo'];
  config: Pick<
    Config,
    'publicUrl' | 'defaultMaxStorageGB' | 'uploadMaxEntries' | 'dicomMaxDecodedBytes' | 'uploadExpiryMs'
  >;
  queue: Parameters<typeof sweepUploadsJob>[0]['queue'];
  /** Entries already read while a file upload arrived (local upload area only). */
  prescan?: ArchivePrescan;
  now: () => Date;
}

/** The limits an uploaded ZIP is checked against, by the job and by the prescan's listing alike. */
export function uploadZipLimits(config: Pick<Config, 'uploadMaxEntries'>): ZipLimits {
  return { ...DEFAULT_ZIP_LIMITS, maxEntries: config.uploadMaxEntries };
}

/** Processing of finished uploads into studies, and the sweep of uploads whose processing was lost. */
export function createIngestModule({ config, studiesRepo: repo, uploadArea, ...deps }: IngestModuleDeps) {
  const processStudy = processStudyJob({
    repo,
    storage: deps.storage,
    uploadArea,
    users: deps.users,
    mail: deps.mail,
    appUrl: config.publicUrl,
    defaultMaxStorageGB: config.defaultMaxStorageGB,
    zipLimits: uploadZipLimits(config),
    maxDecodedBytes: config.dicomMaxDecodedBytes,
    prescan: deps.prescan,
  });
  const sweepUploads = sweepUploadsJob({
    queue: deps.queue,
    repo,
    uploadArea,
    processStudy,
    expiryMs: config.uploadExpiryMs,
    now: deps.now,
  });
  return { jobs: [processStudy, sweepUploads] };
}
