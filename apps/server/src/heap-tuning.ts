import v8 from 'node:v8';

/** How much the JS heap may grow past what a full collection left alive before the next one. */
const HEAP_GROWING_PERCENT = 100;

/**
 * Lets the old generation grow to twice what a full collection left alive (V8's own factor falls to
 * about 1.1 after an idle spell). With the tight limit, the first large upload after a few seconds
 * of quiet ran a full collection about every 100 ms, each promoting the young generation's in-flight
 * request chunks and so calling for the next: 5 to 11 mark-compacts per upload and twice the CPU
 * (`node --trace-gc`, bench/README.md). The price is a heap up to twice its live size (about 130 MB
 * instead of 70 MB here). Left alone when the flag is given on the command line or in NODE_OPTIONS.
 */
export function tuneHeapForUploads(): void {
  if (givenNodeFlags().some((arg) => arg.startsWith('--heap-growing-percent'))) return;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * The young generation's size, which V8 fixes when the process starts: `npm start` and the image's
 * entry point pass it (package.json, Dockerfile). With V8's default (16 MiB semi-spaces), indexing
 * a 5,000-file upload ran 2-3 scavenges of 10-30 ms each, every one copying the thousands of
 * instance rows still in flight; with 64 MiB, the time from the last byte to indexed fell from about
 * 0.38 s to 0.32 s (bench/README.md). The price is up to 96 MiB more memory per process under load.
 */
export const YOUNG_GENERATION_FLAG = '--max-semi-space-size=64';

/** Whether this process was started with YOUNG_GENERATION_FLAG (on its command line or in NODE_OPTIONS). */
export function startedWithYoungGenerationFlag(): boolean {
  return givenNodeFlags().includes(YOUNG_GENERATION_FLAG);
}

/** The flags node was started with: its command line and NODE_OPTIONS. */
function givenNodeFlags(): string[] {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
}
