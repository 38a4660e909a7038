/** Saves a blob or a URL under a file name through a temporary link. */
export function saveFile(data: Blob | string, fileName: string): void {
  const href = typeof data === 'string' ? data : URL.createObjectURL(data);
  const a = document.createElement('a');
  a.href = href;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  if (typeof data !== 'string') setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/**
 * The server's QR SVG as an image source: drawn through <img>, markup in it cannot run or style the
 * page (it is never put into the DOM).
 */
export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}
