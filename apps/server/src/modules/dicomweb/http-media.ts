import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

/** One media range of an Accept header, with the parameters DICOMweb uses. */
export interface MediaRange {
  type: string;
  /** `type` parameter of multipart/related. */
  partType: string | null;
  transferSyntax: string | null;
  q: number;
}

/** Parses Accept (several ranges, quoted or unquoted parameters, as dicomweb clients send them). */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header || !header.trim()) return [{ type: '*/*', partType: null, transferSyntax: null, q: 1 }];
  const ranges: MediaRange[] = [];
  // Commas inside quoted parameters are not separators.
  for (const raw of header.match(/(?:[^,"]|"[^"]*")+/g) ?? []) {
    const [typePart, ...params] = raw.split(';').map((s) => s.trim());
    if (!typePart) continue;
    const range: MediaRange = { type: typePart.toLowerCase(), partType: null, transferSyntax: null, q: 1 };
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const name = p.slice(0, eq).trim().toLowerCase();
      const value = p
        .slice(eq + 1)
        .trim()
        .replace(/^"|"$/g, '');
      if (name === 'type') range.partType = value.toLowerCase();
      else if (name === 'transfer-syntax') range.transferSyntax = value;
      else if (name === 'q') range.q = Number(value);
    }
    if (!(range.q > 0)) continue;
    ranges.push(range);
  }
  return ranges.sort((a, b) => b.q - a.q);
}

const typeMatches = (pattern: string, type: string) =>
  pattern === '*/*' || pattern === type || (pattern.endsWith('/*') && type.startsWith(pattern.slice(0, -1)));

/**
 * Whether a multipart/related answer whose parts are `partType` in transfer syntax `ts` is
 * acceptable. `alsoPartTypes` are part types the client may name for the same data (e.g.
 * application/octet-stream for a compressed frame). A range without a transfer-syntax parameter
 * accepts the data as stored.
 */
export function acceptsMultipart(ranges: MediaRange[], partTypes: string[], ts: string): boolean {
  return ranges.some((r) => {
    if (r.type === '*/*' || r.type === 'multipart/*') return true;
    if (r.type !== 'multipart/related') return false;
    if (r.partType && !partTypes.some((t) => typeMatches(r.partType!, t))) return false;
    return !r.transferSyntax || r.transferSyntax === '*' || r.transferSyntax === ts;
  });
}

export function acceptsJson(ranges: MediaRange[]): boolean {
  return ranges.some((r) =>
    ['*/*', 'application/*', 'application/json', 'application/dicom+json'].includes(r.type),
  );
}

export interface Part {
  contentType: string;
  contentLocation?: string;
  body: Uint8Array | (() => Promise<Readable>);
}

/**
 * A multipart/related body, streamed part by part so a whole study is never held in memory.
 * Parts whose body is a function are opened only when their turn comes.
 */
export function multipartBody(
  parts: Part[] | AsyncIterable<Part>,
  boundary = randomBytes(16).toString('hex'),
): { stream: Readable; boundary: string } {
  async function* generate() {
    for await (const part of parts as AsyncIterable<Part>) {
      let head = `--${boundary}\r\nContent-Type: ${part.contentType}\r\n`;
      if (part.contentLocation) head += `Content-Location: ${part.contentLocation}\r\n`;
      yield Buffer.from(`${head}\r\n`);
      if (typeof part.body === 'function') {
        const stream = await part.body();
        for await (const chunk of stream) yield chunk as Buffer;
      } else {
        yield Buffer.from(part.body.buffer, part.body.byteOffset, part.body.byteLength);
      }
      yield Buffer.from('\r\n');
    }
    yield Buffer.from(`--${boundary}--\r\n`);
  }
  return { stream: Readable.from(generate(), { objectMode: false }), boundary };
}

/** DICOM UID: digits and dots, no empty or zero-padded component, at most 64 characters. */
export const UID_PATTERN = /^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*$/;
export const isUid = (v: string) => v.length > 0 && v.length <= 64 && UID_PATTERN.test(v);
