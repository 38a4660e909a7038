import type { Logger } from 'pino';
import type { DicomStore } from '../../ports/dicom-store/dicom-store';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { AccessService } from '../access';
import type { AuditRecorder } from '../audit';
import { createDicomwebAccess } from './dicomweb-access';
import { createDicomwebMetadata } from './dicomweb-metadata.service';
import { createDicomwebForwarding } from './dicomweb-forward.service';
import { createDicomwebRendering } from './dicomweb-render.service';
import { createDicomwebRetrieval } from './dicomweb-retrieve.service';
import { createDicomwebSearch } from './dicomweb-search.service';
import type { DicomwebRepository } from './dicomweb.repository';
import { createSeriesMetadata } from './series-metadata';

export type { Principal } from '../access';
export { DICOMWEB_ROOT } from './dicomweb-access';
export type { ForwardedRead } from './dicomweb-forward.service';

interface Deps {
  repo: DicomwebRepository;
  access: AccessService;
  storage: ObjectStorage;
  store: DicomStore;
  audit: AuditRecorder;
  log: Logger;
  /** Decoded image size an instance may declare before it is rendered (see dicom/pixel-budget.ts). */
  maxDecodedBytes: number;
}

/**
 * DICOMweb over the studies we store: QIDO-RS (dicomweb-search.service.ts), WADO-RS and WADO-URI
 * (dicomweb-metadata.service.ts, dicomweb-retrieve.service.ts, dicomweb-render.service.ts, or an external store through
 * dicomweb-forward.service.ts), each behind the access check (dicomweb-access.ts). The DICOM JSON
 * the index answers is built in dicom-json.ts; a series' metadata from its files in series-metadata.ts.
 */
export function createDicomwebService(deps: Deps) {
  const { repo, storage } = deps;
  const access = createDicomwebAccess({ repo, access: deps.access, audit: deps.audit });
  const metadata = createSeriesMetadata({ repo, storage, log: deps.log });
  return {
    resolveStudy: access.resolveStudy,
    resolveSeries: access.resolveSeries,
    resolveInstance: access.resolveInstance,
    ...createDicomwebMetadata({ repo, access, metadata }),
    ...createDicomwebRetrieval({ repo, access, metadata, storage }),
    ...createDicomwebSearch({ repo, access, metadata }),
    ...createDicomwebRendering({ repo, access, storage, maxDecodedBytes: deps.maxDecodedBytes }),
    ...createDicomwebForwarding({ access, store: deps.store }),
    audit: access.audit,
  };
}
export type DicomwebService = ReturnType<typeof createDicomwebService>;
