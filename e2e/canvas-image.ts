/**
 * Runs in the page: how many of OHIF's viewport canvases hold image pixels (a 128×128 scaled copy
 * of each is read, since a WebGL canvas cannot be read directly and a full read of a large canvas
 * costs milliseconds). 0 while nothing is drawn, so `page.waitForFunction` waits for the first
 * image. Shared by the browser tests and the viewer benchmarks; it must stay self-contained, as it
 * is sent to the page as source.
 */
export function canvasesWithImage(): number {
  let drawn = 0;
  for (const canvas of Array.from(
    document.querySelectorAll<HTMLCanvasElement>('canvas.cornerstone-canvas'),
  )) {
    if (!canvas.width || !canvas.height) continue;
    const copy = document.createElement('canvas');
    copy.width = 128;
    copy.height = 128;
    const g = copy.getContext('2d')!;
    g.drawImage(canvas, 0, 0, 128, 128);
    const d = g.getImageData(0, 0, 128, 128).data;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i]! > 100) {
        drawn++;
        break;
      }
    }
  }
  return drawn;
}
