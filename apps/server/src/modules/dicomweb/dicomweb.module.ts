import type { Logger } from 'pino';
import type { Config } from '../../config';
import { createDicomStore } from '../../ports/dicom-store/index';
import { createDicomwebRepository } from './dicomweb.repository';
import { dicomwebRoutes } from './dicomweb.routes';
import { createDicomwebService, DICOMWEB_ROOT } from './dicomweb.service';

type ServiceDeps = Parameters<typeof createDicomwebService>[0];

export interface DicomwebModuleDeps extends Pick<ServiceDeps, 'access' | 'storage' | 'audit'> {
  db: Parameters<typeof createDicomwebRepository>[0];
  log: Logger;
  config: Pick<Config, 'dicomMaxDecodedBytes' | 'dicomwebUrl'>;
  /** Who calls on the app's origin: signed-in users and the other bearer credentials (session-principal.ts). */
  principal: Parameters<typeof dicomwebRoutes>[0]['principal'];
}

/** QIDO-RS / WADO-RS / WADO-URI over stored studies, on the app's origin at DICOMWEB_ROOT. */
export function createDicomwebModule({ db, config, principal, ...deps }: DicomwebModuleDeps) {
  const dicomwebRepo = createDicomwebRepository(db);
  // Where the viewer's images are read from: built-in, or an external DICOMweb server (DICOMWEB_URL).
  const store = createDicomStore(config);
  const dicomweb = createDicomwebService({
    repo: dicomwebRepo,
    access: deps.access,
    storage: deps.storage,
    store,
    audit: deps.audit,
    log: deps.log,
    maxDecodedBytes: config.dicomMaxDecodedBytes,
  });
  // For standard clients of signed-in users and for vendors' and links' credentials; the viewer
  // serves its own origin's copy (modules/viewer/viewer-app.ts).
  const mounts = () => [{ prefix: DICOMWEB_ROOT, plugin: dicomwebRoutes({ dicomweb, principal }) }];
  return { dicomwebRepo, store, dicomweb, mounts };
}
