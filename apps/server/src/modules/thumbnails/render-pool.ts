import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { RenderTask } from './render-worker';

/** A task that runs longer than this is stopped (its worker is ended and replaced). */
const RENDER_TIMEOUT_MS = 30_000;
/** Heap one render worker may use; exceeding it ends that worker, not the server. */
const WORKER_HEAP_MB = 768;

// The bundle (dist/main.js) ships the worker as dist/render-worker.js; from sources (tests, `npm run
// dev`) the worker loads the TypeScript file through tsx.
const fromSources = import.meta.url.endsWith('.ts');
const workerFile = new URL(fromSources ? './render-worker.ts' : './render-worker.js', import.meta.url).href;

let pool: Piscina<RenderTask, Uint8Array> | undefined;

function renderPool(): Piscina<RenderTask, Uint8Array> {
  pool ??= new Piscina<RenderTask, Uint8Array>({
    filename: workerFile,
    // One core stays with the event loop, so the API answers while images are drawn.
    maxThreads: Math.max(1, availableParallelism() - 1),
    minThreads: 0,
    idleTimeout: 60_000,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 64 },
    ...(fromSources ? { execArgv: ['--import', 'tsx'] } : {}),
  });
  return pool;
}

/** The render worker's failure, with what the caller needs to tell a missing frame from a bad image. */
export class RenderError extends Error {
  override readonly name = 'RenderError';
  constructor(
    message: string,
    /** The instance has no such frame (a RangeError in the worker). */
    readonly noSuchFrame = false,
  ) {
    super(message);
  }
}

async function run(task: RenderTask): Promise<Buffer> {
  // The worker gets its own copy of the file's bytes, moved rather than cloned.
  const file = new Uint8Array(task.file);
  try {
    const out = await renderPool().run(
      { ...task, file },
      { transferList: [file.buffer as ArrayBuffer], signal: AbortSignal.timeout(RENDER_TIMEOUT_MS) },
    );
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  } catch (err) {
    const e = err as Error;
    if (e?.name === 'AbortError' || e?.name === 'TimeoutError')
      throw new RenderError(`rendering took longer than ${RENDER_TIMEOUT_MS / 1000} s`);
    if (e instanceof RangeError || e?.name === 'RangeError') throw new RenderError(e.message, true);
    throw new RenderError(String(e?.message ?? e).slice(0, 300));
  }
}

/** The study thumbnail of an instance (see render.ts), drawn in a worker. */
export function renderThumbnail(file: Uint8Array, maxDecodedBytes: number): Promise<Buffer> {
  return run({ kind: 'thumbnail', file, maxDecodedBytes });
}

/** One frame at full size (see render.ts), drawn in a worker. */
export function renderFrame(
  file: Uint8Array,
  frame: number,
  format: 'jpeg' | 'png',
  maxDecodedBytes: number,
): Promise<Buffer> {
  return run({ kind: 'frame', file, frame, format, maxDecodedBytes });
}

/** A frame scaled to fit (see render.ts), drawn in a worker. */
export function renderFitted(
  file: Uint8Array,
  frame: number | undefined,
  format: 'jpeg' | 'png',
  width: number,
  height: number,
  maxDecodedBytes: number,
): Promise<Buffer> {
  return run({ kind: 'fitted', file, frame, format, width, height, maxDecodedBytes });
}

/** Ends the workers (the server's shutdown). */
export async function closeRenderPool(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.destroy();
}
