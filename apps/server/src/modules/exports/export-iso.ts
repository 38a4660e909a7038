import { Readable } from 'node:stream';
import {
  isoStream,
  type IsoFile,
  MAX_FILE_SIZE,
  uniqueLevel1Paths,
} from '../../dicom-archive/iso9660-writer';
import type { ObjectStorage } from '../../ports/storage/storage';
import { FILE_SET_ID } from './dicomdir';
import { ExportProblem, type ZipSpan } from './export-builder';
import { escapeHtml, INDEX_PATH } from './export-contents';

/** How far reading the ZIP may run ahead of writing the image. */
const READ_AHEAD_BYTES = 8 * 1024 * 1024;

/** Bytes of a sequential stream cut into ranges asked for in increasing order; gaps are skipped. */
function sequentialSlices(source: AsyncIterable<Buffer | Uint8Array>) {
  const it = source[Symbol.asyncIterator]();
  let pos = 0;
  let rest: Buffer = Buffer.alloc(0);
  const more = async () => {
    const r = await it.next();
    if (r.done) throw new Error('the ZIP ended before its last entry');
    rest = Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value);
  };
  return {
    async *slice(start: number, size: number): AsyncGenerator<Buffer> {
      if (start < pos) throw new Error('ZIP ranges must be asked for in order');
      while (pos < start) {
        if (!rest.length) await more();
        const k = Math.min(rest.length, start - pos);
        rest = rest.subarray(k);
        pos += k;
      }
      let left = size;
      while (left > 0) {
        if (!rest.length) await more();
        const k = Math.min(rest.length, left);
        yield rest.subarray(0, k);
        rest = rest.subarray(k);
        pos += k;
        left -= k;
      }
    },
    async close() {
      await it.return?.();
    },
  };
}

/**
 * What the disc image holds: every entry of the ZIP under its ISO 9660 level-1 path (DICOM File IDs
 * and the report PDFs are level-1 names already; `FHIR/bundle.json` → `FHIR/BUNDLE.JSO`, …), and
 * index.html as `INDEX.HTM` with its links to renamed files following them.
 */
export function isoContents(spans: ZipSpan[]): Array<IsoFile & { span: ZipSpan; data?: Buffer }> {
  const paths = uniqueLevel1Paths(spans.map((s) => s.name));
  const renamed = spans.map((s, i) => [s.name, paths[i]!] as const).filter(([a, b]) => a !== b);
  return spans.map((span, i) => {
    if (span.name !== INDEX_PATH || !span.data) return { path: paths[i]!, size: span.size, span };
    let html = span.data.toString('utf8');
    for (const [from, to] of renamed)
      html = html.split(`href="${escapeHtml(from)}"`).join(`href="${escapeHtml(to)}"`);
    const data = Buffer.from(html, 'utf8');
    return { path: paths[i]!, size: data.length, span, data };
  });
}

/**
 * The ISO 9660 image of an export whose ZIP is written: the ZIP is read once, front to back, and
 * each entry's bytes (stored, so as they are) become a file of the image. Memory holds the layout
 * and the read-ahead.
 */
export function isoReadable(
  storage: ObjectStorage,
  zipKey: string,
  spans: ZipSpan[],
  opts: { at: Date; onBytes: (n: number) => void },
): Readable {
  const files = isoContents(spans);
  const tooLarge = files.find((f) => f.size > MAX_FILE_SIZE);
  if (tooLarge)
    throw new ExportProblem(
      'A file is larger than 4 GiB, more than a disc image (ISO 9660) can hold. Export without the disc image.',
    );
  async function* image(): AsyncGenerator<Buffer> {
    const zip = sequentialSlices(await storage.get(zipKey));
    try {
      yield* isoStream(
        files,
        (i) => {
          const f = files[i]!;
          return f.data ? [f.data] : zip.slice(f.span.offset, f.span.size);
        },
        { volumeId: FILE_SET_ID, at: opts.at, application: 'MEDICAL IMAGING EXPORT', onBytes: opts.onBytes },
      );
    } finally {
      await zip.close();
    }
  }
  return Readable.from(image(), { objectMode: false, highWaterMark: READ_AHEAD_BYTES });
}
