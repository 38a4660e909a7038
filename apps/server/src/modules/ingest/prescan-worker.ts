import { parentPort, workerData } from 'node:worker_threads';
import type { ScannedEntry } from '../../dicom-archive/zip-stream-scanner';
import type { ZipLimits } from '../../dicom-archive/zip-reader';
import { UploadScans, type ArchiveListing } from './upload-scans';

/** What archive-prescan.ts sends this worker, in the order the bytes arrived. */
export type PrescanRequest =
  | { type: 'begin'; id: string; path: string; offset: number }
  /** The upload's file holds its bytes up to `to`, `bytes` more than the last message said. */
  | { type: 'written'; id: string; to: number; bytes: number }
  | { type: 'finished'; id: string; size: number }
  | { type: 'take'; id: string; request: number }
  | { type: 'forget'; id: string }
  | { type: 'held'; request: number };

/**
 * What it answers: scanned bytes (so the sender knows how far behind the scan is) with the entries
 * they completed, uploads it stopped following, and answers to requests.
 */
export type PrescanReply =
  | { type: 'scanned'; bytes: number; id: string; found?: Array<[number, ScannedEntry]> }
  | { type: 'dropped'; id: string }
  | { type: 'answer'; request: number; value: unknown };

/**
 * The answer to `take`: the offsets of the upload's entries, those found but not yet sent, and the
 * archive's listing when it was made here.
 */
export interface TakeAnswer {
  offsets: number[];
  found: Array<[number, ScannedEntry]>;
  listing?: ArchiveListing;
}

/** What the worker is started with. */
export interface PrescanWorkerData {
  maxDecodedBytes?: number;
  /** The limits a finished upload's listing is checked against (the process-study job's). */
  zipLimits: ZipLimits;
}

const settings = workerData as PrescanWorkerData;

const port = parentPort!;
const reply = (message: PrescanReply) => port.postMessage(message);
const scans = new UploadScans(settings.maxDecodedBytes, (id) => reply({ type: 'dropped', id }));

port.on('message', (m: PrescanRequest) => {
  switch (m.type) {
    case 'begin':
      scans.begin(m.id, m.path, m.offset);
      break;
    case 'written': {
      scans.readTo(m.id, m.to);
      // Entries go to the sender as they are found, so an upload's results are not all copied
      // across at its end, when the job waits for them.
      const found = scans.drainFound(m.id);
      reply({ type: 'scanned', bytes: m.bytes, id: m.id, ...(found.length ? { found } : {}) });
      break;
    }
    case 'finished':
      scans.finished(m.id, m.size, settings.zipLimits);
      break;
    case 'take': {
      // Entries were sent as they were found (with those left, found while replaying a resumed
      // upload's bytes); which of them stand is said by offset.
      const listing = scans.listingOf(m.id);
      const found = scans.drainFound(m.id);
      const entries = scans.take(m.id);
      const value: TakeAnswer | null = entries ? { offsets: [...entries.keys()], found } : null;
      if (!value || !listing) reply({ type: 'answer', request: m.request, value });
      else
        void listing.then(
          (made) =>
            reply({ type: 'answer', request: m.request, value: { ...value, listing: made ?? undefined } }),
          () => reply({ type: 'answer', request: m.request, value }),
        );
      break;
    }
    case 'forget':
      scans.forget(m.id);
      break;
    case 'held':
      reply({ type: 'answer', request: m.request, value: scans.heldBytes });
      break;
  }
});
