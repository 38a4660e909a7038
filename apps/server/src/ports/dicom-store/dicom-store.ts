import type { Readable } from 'node:stream';

/** One stored instance handed to a store: its original Part 10 bytes, opened on demand. */
export interface StoreInstance {
  sopInstanceUid: string;
  size: number;
  open(): Promise<Readable>;
}

export interface ForwardedResponse {
  status: number;
  contentType: string | null;
  body: Readable;
}

/**
 * Where the viewer's images are read from. The built-in store is our own DICOMweb over object
 * storage (nothing to copy); the external adapter keeps a copy of each study in another DICOMweb
 * server and forwards reads to it, after our own access check.
 */
export interface DicomStore {
  readonly kind: 'builtin' | 'dicomweb';
  /** Copies a study's instances into the store (idempotent). The built-in store already has them. */
  storeStudy(studyInstanceUid: string, instances: StoreInstance[]): Promise<void>;
  /** SOP Instance UIDs of the study that the store already holds (empty when it has none of it). */
  storedInstances?(studyInstanceUid: string): Promise<Set<string>>;
  /** Forwards a WADO-RS read (path below the DICOMweb root, query included). Built-in: undefined. */
  forward?(pathAndQuery: string, accept: string | undefined): Promise<ForwardedResponse>;
  /** The store's own root, so URIs it writes into metadata can be pointed back at us. */
  readonly root?: string;
}
