import { parentPort, workerData } from 'node:worker_threads';
import { UploadScans } from './upload-scans';

/** What archive-prescan.ts sends this worker, in the order the bytes arrived. */
export type PrescanRequest =
  | { type: 'begin'; id: string; path: string; offset: number }
  | { type: 'bytes'; id: string; bytes: Uint8Array }
  | { type: 'take'; id: string; request: number }
  | { type: 'forget'; id: string }
  | { type: 'held'; request: number };

/** What it answers: scanned bytes (so the sender knows how far behind the scan is) and results. */
export type PrescanReply =
  { type: 'scanned'; bytes: number } | { type: 'answer'; request: number; value: unknown };

const scans = new UploadScans((workerData as { maxDecodedBytes?: number }).maxDecodedBytes);
const port = parentPort!;
const reply = (message: PrescanReply) => port.postMessage(message);

port.on('message', (m: PrescanRequest) => {
  switch (m.type) {
    case 'begin':
      scans.begin(m.id, m.path, m.offset);
      break;
    case 'bytes':
      try {
        scans.push(m.id, Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength));
      } catch {
        // A cache: whatever the scan cannot follow is left to the job.
        scans.forget(m.id);
      }
      reply({ type: 'scanned', bytes: m.bytes.byteLength });
      break;
    case 'take': {
      const entries = scans.take(m.id);
      reply({ type: 'answer', request: m.request, value: entries ? [...entries] : null });
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
