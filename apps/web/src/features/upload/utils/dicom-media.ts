/**
 * CD/DVD selections: keep the files whose bytes 128-131 spell 'DICM', plus every file a
 * DICOMDIR on the disc references, since some media store instances without the Part 10 preamble.
 */

/** The path a picked file had inside the chosen folder ('' for a plain file pick). */
export function relativePath(file: File): string {
  return file.webkitRelativePath || '';
}

const DICM = [0x44, 0x49, 0x43, 0x4d];

export async function hasDicmPreamble(file: Blob): Promise<boolean> {
  if (file.size < 132) return false;
  const magic = new Uint8Array(await file.slice(128, 132).arrayBuffer());
  return DICM.every((b, i) => magic[i] === b);
}

/** Disc file IDs are case-insensitive ISO 9660 names, sometimes with a ';1' version suffix. */
function mediaKey(path: string): string {
  return path
    .replace(/\\/g, '/')
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/;\d+$/, '').replace(/\.$/, '').toUpperCase())
    .join('/');
}

function isDicomdir(file: File): boolean {
  return mediaKey(file.name) === 'DICOMDIR';
}

/** Referenced File IDs (0004,1500) of a DICOMDIR, as keys relative to the disc root. */
async function referencedKeys(dicomdir: File): Promise<string[]> {
  const { default: dicomParser } = await import('dicom-parser');
  const dataSet = dicomParser.parseDicom(new Uint8Array(await dicomdir.arrayBuffer()));
  const base = mediaKey(relativePath(dicomdir)).split('/').slice(0, -1);
  const keys: string[] = [];
  for (const item of dataSet.elements.x00041220?.items ?? []) {
    const fileId = item.dataSet?.string('x00041500');
    if (fileId) keys.push(mediaKey([...base, fileId.replace(/\\/g, '/')].join('/')));
  }
  return keys;
}

async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return results;
}

/** The DICOM files of a picked CD/DVD folder, in the order they were picked. */
export async function selectDicomMediaFiles(files: readonly File[]): Promise<File[]> {
  const referenced = new Set<string>();
  for (const dicomdir of files.filter(isDicomdir)) {
    try {
      for (const key of await referencedKeys(dicomdir)) referenced.add(key);
    } catch {
      // An unreadable DICOMDIR only loses its references; the preamble check still finds the files.
    }
  }
  const keep = await mapLimited(
    files,
    16,
    async (file) => referenced.has(mediaKey(relativePath(file))) || (await hasDicmPreamble(file)),
  );
  return files.filter((_, i) => keep[i]);
}
