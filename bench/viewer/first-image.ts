/**
 * The "first image" of both viewer benchmarks: the moment a viewport canvas holds image pixels
 * (`canvasesWithImage` is 0 until then). It runs every 20 ms on the page's main thread, the thread
 * whose work is being timed, so it reads a 128×128 scaled copy of each canvas: reading the whole
 * canvas (about 1000×700) cost several milliseconds a time and slowed both sides' last few hundred
 * milliseconds.
 */
export { canvasesWithImage as viewportHasImage } from '../../e2e/canvas-image';
