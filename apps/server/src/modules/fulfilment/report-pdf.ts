import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';

/** A report as a reading delivers it (report-delivery.ts). */
export interface ReportContent {
  title: string;
  /** Computed by a program (AI Quick Analysis), not written by a professional. */
  automated: boolean;
  /**
   * The line printed under the title of an automated report instead of the built-in summary's
   * (an external AI vendor's reading says whose it is and that it is not a diagnosis).
   */
  notice?: string;
  sections: Array<{ heading: string; text: string }>;
  keyImages?: Array<{ caption: string; jpeg: Buffer }>;
}

const PAGE = { width: 595.28, height: 841.89 }; // A4 in points
const MARGIN = 56;
const AUTOMATED_NOTE =
  'This report was produced automatically from the images. It is a technical summary, not a diagnosis.';

/**
 * The standard PDF fonts speak WinAnsi only: anything else (other scripts, emoji, control
 * characters) becomes '?', so any text a user typed renders as plain text and never fails the PDF.
 */
export function toWinAnsi(text: string): string {
  return Array.from(text.normalize('NFC'))
    .map((ch) => {
      const c = ch.codePointAt(0)!;
      if (ch === '\n' || ch === '\t') return ch === '\t' ? ' ' : ch;
      if (c < 0x20 || (c >= 0x7f && c < 0xa0)) return '';
      if (c <= 0xff) return ch;
      const map: Record<string, string> = {
        '\u2018': "'",
        '\u2019': "'",
        '\u201c': '"',
        '\u201d': '"',
        '\u2013': '-',
        '\u2014': '-',
        '\u2026': '...',
        '\u2022': '-',
        '\u20ac': 'EUR',
      };
      return map[ch] ?? '?';
    })
    .join('');
}

function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of toWinAnsi(text).split('\n')) {
    let line = '';
    for (const word of paragraph.split(/ +/)) {
      // A word wider than the line is cut where it overflows.
      let rest = word;
      while (font.widthOfTextAtSize(rest, size) > width) {
        let n = rest.length - 1;
        while (n > 1 && font.widthOfTextAtSize(rest.slice(0, n), size) > width) n--;
        if (line) lines.push(line);
        lines.push(rest.slice(0, n));
        line = '';
        rest = rest.slice(n);
      }
      const candidate = line ? `${line} ${rest}` : rest;
      if (font.widthOfTextAtSize(candidate, size) > width) {
        lines.push(line);
        line = rest;
      } else line = candidate;
    }
    lines.push(line);
  }
  return lines;
}

/** Renders the report as a PDF of plain text (and the key images as JPEGs). */
export async function renderReportPdf(
  report: ReportContent,
  meta: { serviceName: string; providerName: string; date: Date },
): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setTitle(toWinAnsi(report.title));
  doc.setProducer('Medical imaging platform');
  doc.setCreationDate(meta.date);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const width = PAGE.width - 2 * MARGIN;
  let page: PDFPage = doc.addPage([PAGE.width, PAGE.height]);
  let y = PAGE.height - MARGIN;

  const ensure = (height: number) => {
    if (y - height < MARGIN) {
      page = doc.addPage([PAGE.width, PAGE.height]);
      y = PAGE.height - MARGIN;
    }
  };
  const write = (text: string, font: PDFFont, size: number, color = rgb(0, 0, 0)) => {
    for (const line of wrap(text, font, size, width)) {
      ensure(size * 1.4);
      page.drawText(line, { x: MARGIN, y: y - size, size, font, color });
      y -= size * 1.4;
    }
  };

  write(report.title, bold, 18);
  y -= 4;
  write(
    `${meta.serviceName} - ${meta.providerName} - ${meta.date.toISOString().slice(0, 10)}`,
    regular,
    10,
    rgb(0.35, 0.35, 0.35),
  );
  if (report.automated) {
    y -= 6;
    write(report.notice ?? AUTOMATED_NOTE, bold, 10, rgb(0.6, 0.2, 0.1));
  }
  for (const section of report.sections) {
    y -= 12;
    ensure(40);
    write(section.heading, bold, 13);
    y -= 2;
    write(section.text || '-', regular, 11);
  }
  for (const image of report.keyImages ?? []) {
    let embedded;
    try {
      embedded = await doc.embedJpg(image.jpeg);
    } catch {
      continue; // not a JPEG: left out rather than failing the report
    }
    const scale = Math.min(1, width / embedded.width, 300 / embedded.height);
    const w = embedded.width * scale;
    const h = embedded.height * scale;
    y -= 12;
    ensure(h + 30);
    page.drawImage(embedded, { x: MARGIN, y: y - h, width: w, height: h });
    y -= h + 4;
    write(image.caption, regular, 9, rgb(0.35, 0.35, 0.35));
  }
  return Buffer.from(await doc.save());
}
