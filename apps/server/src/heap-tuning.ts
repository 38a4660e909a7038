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
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (given.some((arg) => arg.startsWith('--heap-growing-percent'))) return;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
