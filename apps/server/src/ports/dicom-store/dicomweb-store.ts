import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { DicomStore, ForwardedResponse, StoreInstance } from './dicom-store';

/** Instances per STOW-RS request, and bytes: keeps each request bounded. */
const BATCH_COUNT = 64;
const BATCH_BYTES = 64 * 1024 * 1024;
/** Matches asked for per QIDO-RS request. */
const QIDO_PAGE = 1000;

/** An external DICOMweb server (e.g. Orthanc's `/dicom-web`): STOW-RS to store, WADO-RS to read. */
export function createDicomwebStore(root: string, opts: { timeoutMs?: number } = {}): DicomStore {
  const base = root.replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 120_000;

  async function stow(batch: StoreInstance[]): Promise<void> {
    const boundary = randomBytes(16).toString('hex');
    async function* body() {
      for (const item of batch) {
        yield Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`);
        for await (const chunk of await item.open()) yield chunk as Buffer;
        yield Buffer.from('\r\n');
      }
      yield Buffer.from(`--${boundary}--\r\n`);
    }
    const res = await fetch(`${base}/studies`, {
      method: 'POST',
      headers: {
        'content-type': `multipart/related; type="application/dicom"; boundary=${boundary}`,
        accept: 'application/dicom+json',
      },
      body: Readable.toWeb(Readable.from(body())) as ReadableStream,
      duplex: 'half',
      signal: AbortSignal.timeout(timeoutMs),
    } as RequestInit);
    const text = await res.text();
    // 200: all stored; 202: some failed (their SOP UIDs are in FailedSOPSequence 0008,1198).
    if (res.status !== 200 && res.status !== 202)
      throw new Error(`DICOMweb store answered ${res.status} to STOW-RS`);
    if (res.status === 202 && text.includes('"00081198"'))
      throw new Error('DICOMweb store refused some instances');
  }

  return {
    kind: 'dicomweb',
    root: base,
    async storeStudy(_studyUid, instances) {
      let batch: StoreInstance[] = [];
      let bytes = 0;
      for (const item of instances) {
        batch.push(item);
        bytes += item.size;
        if (batch.length >= BATCH_COUNT || bytes >= BATCH_BYTES) {
          await stow(batch);
          batch = [];
          bytes = 0;
        }
      }
      if (batch.length > 0) await stow(batch);
    },
    async storedInstances(studyUid) {
      // QIDO-RS, a page at a time: servers may cap how many matches one answer holds.
      const held = new Set<string>();
      for (let offset = 0; ; offset += QIDO_PAGE) {
        const res = await fetch(
          `${base}/studies/${encodeURIComponent(studyUid)}/instances?includefield=00080018&limit=${QIDO_PAGE}&offset=${offset}`,
          { headers: { accept: 'application/dicom+json' }, signal: AbortSignal.timeout(timeoutMs) },
        );
        // Unknown study: 404 (or 204, no matches) by the standard; some servers answer 200 [].
        if (res.status === 404 || res.status === 204) {
          await res.body?.cancel();
          return held;
        }
        if (!res.ok) {
          await res.body?.cancel();
          throw new Error(`DICOMweb store answered ${res.status} to QIDO-RS`);
        }
        const text = await res.text();
        const page = (text.trim() ? JSON.parse(text) : []) as Array<Record<string, { Value?: unknown[] }>>;
        for (const item of page) {
          const uid = item['00080018']?.Value?.[0];
          if (typeof uid === 'string') held.add(uid);
        }
        if (page.length < QIDO_PAGE) return held;
      }
    },
    async forward(pathAndQuery, accept): Promise<ForwardedResponse> {
      const res = await fetch(`${base}${pathAndQuery}`, {
        headers: accept ? { accept } : {},
        signal: AbortSignal.timeout(timeoutMs),
      });
      return {
        status: res.status,
        contentType: res.headers.get('content-type'),
        body: res.body
          ? Readable.fromWeb(res.body as import('node:stream/web').ReadableStream)
          : Readable.from([]),
      };
    },
  };
}
