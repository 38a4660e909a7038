import { inflateSync } from 'node:zlib';

/**
 * The text a PDF draws, one string per text-showing operator, in stream order. Enough for the
 * reports our server writes (apps/server/src/modules/fulfilment/report-pdf.ts: standard fonts, so
 * every string is a hex or literal string of WinAnsi codes); not a general PDF reader.
 */
export function pdfText(pdf: Buffer): string[] {
  const source = pdf.toString('latin1');
  const out: string[] = [];
  const streams = /stream\r?\n/g;
  let match: RegExpExecArray | null;
  while ((match = streams.exec(source))) {
    const start = match.index + match[0].length;
    const end = source.indexOf('endstream', start);
    if (end < 0) break;
    const raw = pdf.subarray(start, end);
    let content: string;
    try {
      content = inflateSync(raw).toString('latin1');
    } catch {
      content = raw.toString('latin1');
    }
    for (const m of content.matchAll(/<([0-9A-Fa-f\s]*)>\s*Tj|\(((?:\\.|[^\\)])*)\)\s*Tj/g)) {
      if (m[1] !== undefined) out.push(Buffer.from(m[1].replace(/\s+/g, ''), 'hex').toString('latin1'));
      else out.push(m[2]!.replace(/\\(.)/g, '$1'));
    }
    streams.lastIndex = end;
  }
  return out;
}
