import type { DicomStore } from './dicom-store';
import { createDicomwebStore } from './dicomweb-store';

/** The built-in store: our DICOMweb reads the instances where they already are. */
const builtinStore: DicomStore = {
  kind: 'builtin',
  async storeStudy() {},
};

/** The external DICOMweb server when DICOMWEB_URL is set, otherwise the built-in store. */
export function createDicomStore(config: { dicomwebUrl: string | undefined }): DicomStore {
  return config.dicomwebUrl ? createDicomwebStore(config.dicomwebUrl) : builtinStore;
}
