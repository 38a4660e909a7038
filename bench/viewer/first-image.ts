/**
 * Runs in the page: whether OHIF's viewport canvas holds image pixels yet (a copy is read, since a
 * WebGL canvas cannot be read directly). The "first image" of both viewer benchmarks.
 */
export function viewportHasImage(): boolean {
  const c = document.querySelector<HTMLCanvasElement>('canvas.cornerstone-canvas');
  if (!c || !c.width) return false;
  const copy = document.createElement('canvas');
  copy.width = c.width;
  copy.height = c.height;
  const g = copy.getContext('2d')!;
  g.drawImage(c, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  for (let i = 0; i < d.length; i += 4 * 7) if (d[i]! > 100) return true;
  return false;
}
