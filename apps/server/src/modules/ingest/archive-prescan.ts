import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { UploadWriteObserver, UploadWriteScan } from '../uploads';
import type { ScannedEntry } from '../../dicom-archive/zip-stream-scanner';
import type { PrescanReply, PrescanRequest, PrescanWorkerData, TakeAnswer } from './prescan-worker';
import type { ArchiveListing } from './upload-scans';

/** What the job takes of an upload the prescan followed. */
export interface PrescanResults {
  /** Entries read, by the offset of their local header. */
  entries: Map<number, ScannedEntry>;
  /** The archive's listing, made once the upload finished; absent when it was not. */
  listing?: ArchiveListing;
}

/** Bytes written before the worker is told to read them (fewer messages than writes). */
const ANNOUNCE_EVERY = 1024 * 1024;
/**
 * Bytes written and not scanned yet, for all uploads together, beyond which a write stops being
 * followed (its upload is left to the job): the job never waits long for a worker that fell behind.
 */
const MAX_BEHIND = 64 * 1024 * 1024;

// The bundle (dist/main.js) ships the worker as dist/prescan-worker.js; from sources (tests, `npm
// run dev`) the worker loads the TypeScript file through tsx.
const fromSources = import.meta.url.endsWith('.ts');
const workerFile = new URL(fromSources ? './prescan-worker.ts' : './prescan-worker.js', import.meta.url);

/** A worker's script that loads the TypeScript entry through tsx's require hook (its --import does not reach a worker's entry). */
function sourcesWorker(): string {
  const tsx = createRequire(import.meta.url).resolve('tsx/cjs/api');
  return `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(fileURLToPath(workerFile))});`;
}

/**
 * Reads a stored-mode ZIP while tus writes it: as each part of the upload reaches its file, a worker
 * thread reads it back from there (the page cache, just written), computes each entry's CRC-32 and,
 * once an entry's last byte has passed, classifies it (DICOM header parsed; upload-scans.ts). When the
 * upload ends the process-study job finds the work done and only indexes.
 *
 * The scans run in a worker thread: done on the event loop, their CRC-32 and parsing held up the
 * reading of the upload's own bytes, and a 5,000-file upload took half as long again
 * (bench/README.md). The event loop only says how far the file has been written, every megabyte; it
 * no longer copies the bytes over to the worker, which cost it a tenth of a second per 300 MB
 * (bench/README.md). The entries a read completes come back with the worker's answer to it, so that
 * the job's `take` has little left to copy. Results are a cache: they live in this process only, are
 * dropped when the upload is terminated or created again (or the worker falls behind or ends), and
 * the job uses an entry only when the central directory agrees on its offset, size and CRC-32;
 * anything missing it reads itself.
 */
export class ArchivePrescan implements UploadWriteObserver {
  private worker: Worker | undefined;
  private readonly answers = new Map<number, (value: unknown) => void>();
  private nextRequest = 0;
  /** Bytes the worker was told of that it has not scanned yet. */
  private behind = 0;
  /**
   * The entries the worker has found so far, per upload, sent as their bytes were scanned: copied
   * across while the upload arrives rather than all at its end. `take` keeps those the worker still
   * holds; uploads it stops following are dropped here when it says so.
   */
  private readonly found = new Map<string, Map<number, ScannedEntry>>();

  constructor(
    private readonly log: Logger,
    private readonly settings: PrescanWorkerData,
  ) {}

  async beginWrite(id: string, path: string, offset: number): Promise<UploadWriteScan> {
    this.send({ type: 'begin', id, path, offset });
    let written = offset;
    let told = offset;
    let following = true;
    const tell = () => {
      if (!following || written === told) return;
      if (this.behind > MAX_BEHIND || !this.worker) {
        following = false;
        this.forget(id);
        return;
      }
      this.behind += written - told;
      this.send({ type: 'written', id, to: written, bytes: written - told });
      told = written;
    };
    return {
      written: (bytes) => {
        written += bytes;
        if (written - told >= ANNOUNCE_EVERY) tell();
      },
      end: tell,
    };
  }

  /**
   * Upload `id` has all its `size` bytes (tus finished it): the worker lists its archive now, while
   * the client asks for processing, rather than the job after it.
   */
  finished(id: string, size: number): void {
    if (this.worker) this.send({ type: 'finished', id, size });
  }

  /**
   * Hands the results for `id` over (once), when every byte sent before has been scanned: the
   * entries read, and the archive's listing when the worker made one.
   */
  async take(id: string): Promise<PrescanResults | undefined> {
    const answer = (await this.ask({ type: 'take', id })) as TakeAnswer | null | undefined;
    const found = this.found.get(id) ?? new Map<number, ScannedEntry>();
    this.found.delete(id);
    if (!answer) return undefined;
    for (const [offset, entry] of answer.found) found.set(offset, entry);
    const entries = new Map<number, ScannedEntry>();
    for (const offset of answer.offsets) {
      const entry = found.get(offset);
      if (entry) entries.set(offset, entry);
    }
    return { entries, listing: answer.listing };
  }

  forget(id: string): void {
    this.found.delete(id);
    if (this.worker) this.send({ type: 'forget', id });
  }

  /** Bytes of entries under way, held for all uploads (for tests). */
  async heldBytes(): Promise<number> {
    return ((await this.ask({ type: 'held' })) as number | undefined) ?? 0;
  }

  /** Ends the worker; what it held is dropped (the jobs read those uploads themselves). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.lost();
    await worker?.terminate();
  }

  private ask(request: { type: 'take'; id: string } | { type: 'held' }): Promise<unknown> {
    if (!this.worker) return Promise.resolve(undefined);
    const number = this.nextRequest++;
    return new Promise((resolve) => {
      this.answers.set(number, resolve);
      this.send({ ...request, request: number });
    });
  }

  private send(message: PrescanRequest): void {
    this.started().postMessage(message);
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const workerData = this.settings;
    const worker = fromSources
      ? new Worker(sourcesWorker(), { eval: true, workerData })
      : new Worker(workerFile, { workerData });
    // The scans are a cache: they never keep the process alive.
    worker.unref();
    worker.on('message', (m: PrescanReply) => {
      if (this.worker !== worker) return;
      if (m.type === 'scanned') {
        this.behind -= m.bytes;
        if (m.found) this.keepFound(m.id, m.found);
      } else if (m.type === 'dropped') {
        this.found.delete(m.id);
      } else {
        this.answers.get(m.request)?.(m.value);
        this.answers.delete(m.request);
      }
    });
    worker.on('error', (err) => {
      this.log.warn({ err }, 'upload prescan worker failed; jobs read those uploads themselves');
    });
    worker.on('exit', () => {
      if (this.worker === worker) this.lost();
    });
    this.worker = worker;
    return worker;
  }

  private keepFound(id: string, entries: Array<[number, ScannedEntry]>): void {
    let kept = this.found.get(id);
    if (!kept) {
      kept = new Map();
      this.found.set(id, kept);
    }
    for (const [offset, entry] of entries) kept.set(offset, entry);
  }

  /** The worker ended: what it held is gone, and whoever waits for it gets nothing. */
  private lost(): void {
    this.worker = undefined;
    this.behind = 0;
    this.found.clear();
    for (const resolve of this.answers.values()) resolve(undefined);
    this.answers.clear();
  }
}
