/**
 * Runs in the page: whether OHIF's viewport canvas holds image pixels yet (a copy is read, since a
 * WebGL canvas cannot be read directly). The "first image" of both viewer benchmarks.
 *
 * It runs every 20 ms on the page's main thread, the thread whose work is being timed, so it reads a
 * 128×128 scaled copy: reading the whole canvas (about 1000×700) cost several milliseconds a time and
 * slowed both sides' last few hundred milliseconds.
 */
export function viewportHasImage(): boolean {
  const c = document.querySelector<HTMLCanvasElement>('canvas.cornerstone-canvas');
  if (!c || !c.width) return false;
  const copy = document.createElement('canvas');
  copy.width = 128;
  copy.height = 128;
  const g = copy.getContext('2d')!;
  g.drawImage(c, 0, 0, 128, 128);
  const d = g.getImageData(0, 0, 128, 128).data;
  for (let i = 0; i < d.length; i += 4) if (d[i]! > 100) return true;
  return false;
}
