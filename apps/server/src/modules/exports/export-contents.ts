import type { ExportsRepository, ExportStudyRow } from './exports.repository';

/** Paths inside the archive. DICOM File IDs keep to PS3.10's eight upper-case characters a level. */
export const DICOMDIR_PATH = 'DICOMDIR';
export const FHIR_PATH = 'FHIR/bundle.json';
export const INDEX_PATH = 'index.html';
export const HISTORY_DIR = 'HISTORY';
const pad = (n: number, width: number) => String(n).padStart(width, '0');
export const studyDir = (i: number) => `ST${pad(i + 1, 6)}`;
export const seriesDir = (i: number) => `SE${pad(i + 1, 6)}`;
export const instanceFile = (i: number) => `IM${pad(i + 1, 6)}`;
export const reportPath = (i: number) => `REPORTS/RPT${pad(i + 1, 5)}.PDF`;

type Rows<F extends (...args: never[]) => Promise<unknown[]>> = Awaited<ReturnType<F>>;
export interface History {
  shares: Rows<ExportsRepository['sharesOf']>;
  links: Rows<ExportsRepository['linksOf']>;
  orders: Rows<ExportsRepository['ordersOf']>;
  access: Rows<ExportsRepository['accessEventsOf']>;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : '');

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
function csvField(v: unknown): string {
  const s = v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : String(v);
  // A leading =, +, - or @ would be run as a formula by a spreadsheet: prefix it.
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function toCsv(header: string[], rows: unknown[][]): Buffer {
  const lines = [header, ...rows].map((r) => r.map(csvField).join(','));
  return Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8');
}

/** Who did something, as the patient reads it: themselves, or a role and an id. */
function actorOf(e: History['access'][number], ownerId: string): string {
  if (e.actorId === ownerId) return 'you';
  const link = (e.details as { recipient?: unknown } | null)?.recipient;
  if (e.actorRole === 'link' && typeof link === 'string') return `link recipient "${link}"`;
  return [e.actorRole ?? 'system', e.actorId ?? ''].filter(Boolean).join(' ');
}

/** HISTORY/links.csv: every study link, its policy and use. */
function linksCsv(history: History): { name: string; data: Buffer } {
  return {
    name: `${HISTORY_DIR}/links.csv`,
    data: toCsv(
      [
        'link_id',
        'study_id',
        'mode',
        'label',
        'allow_download',
        'opens',
        'max_opens',
        'created_at',
        'expires_at',
        'paused_at',
        'revoked_at',
        'last_opened_at',
        'last_recipient',
      ],
      history.links.map((l) => [
        l.id,
        l.studyId,
        l.mode,
        l.label,
        l.allowDownload,
        l.opens,
        l.maxOpens,
        l.createdAt,
        l.expiresAt,
        l.pausedAt,
        l.revokedAt,
        l.lastOpenedAt,
        l.lastRecipient,
      ]),
    ),
  };
}

/** HISTORY/orders.csv: every order, paid and refunded. */
function ordersCsv(history: History): { name: string; data: Buffer } {
  return {
    name: `${HISTORY_DIR}/orders.csv`,
    data: toCsv(
      [
        'order_id',
        'study_id',
        'service',
        'provider',
        'status',
        'cost_cents',
        'ordered_at',
        'paid_at',
        'refunded_at',
        'refund_reason',
      ],
      history.orders.map((o) => [
        o.id,
        o.studyId,
        o.service,
        o.provider,
        o.status,
        o.costCents,
        o.createdAt,
        o.paidAt,
        o.refundedAt,
        o.refundReason,
      ]),
    ),
  };
}

/** HISTORY/history.json: the same history with the access events (their actors named). */
function historyJson(history: History, access: unknown[]) {
  return {
    shares: history.shares.map((s) => ({
      ...s,
      createdAt: iso(s.createdAt),
      revokedAt: iso(s.revokedAt) || null,
      firstOpenedAt: iso(s.firstOpenedAt) || null,
    })),
    links: history.links.map((l) => ({
      ...l,
      createdAt: iso(l.createdAt),
      expiresAt: iso(l.expiresAt),
      pausedAt: iso(l.pausedAt) || null,
      revokedAt: iso(l.revokedAt) || null,
      lastOpenedAt: iso(l.lastOpenedAt) || null,
    })),
    orders: history.orders.map((o) => ({
      ...o,
      createdAt: iso(o.createdAt),
      paidAt: iso(o.paidAt) || null,
      refundedAt: iso(o.refundedAt) || null,
    })),
    access,
  };
}

/** The history files: CSV per kind and one JSON with all of them. */
export function historyFiles(history: History, ownerId: string): Array<{ name: string; data: Buffer }> {
  const access = history.access.map((e) => ({
    at: iso(e.at),
    actor: actorOf(e, ownerId),
    action: e.action,
    outcome: e.outcome,
    targetType: e.targetType,
    targetId: e.targetId,
    via: (e.details as { via?: unknown } | null)?.via ?? null,
  }));
  return [
    {
      name: `${HISTORY_DIR}/shares.csv`,
      data: toCsv(
        ['share_id', 'study_id', 'shared_with', 'shared_at', 'revoked_at', 'first_opened_at'],
        history.shares.map((s) => [s.id, s.studyId, s.email, s.createdAt, s.revokedAt, s.firstOpenedAt]),
      ),
    },
    linksCsv(history),
    ordersCsv(history),
    {
      name: `${HISTORY_DIR}/access.csv`,
      data: toCsv(
        ['at', 'actor', 'action', 'outcome', 'target_type', 'target_id', 'via'],
        access.map((a) => [a.at, a.actor, a.action, a.outcome, a.targetType, a.targetId, a.via]),
      ),
    },
    {
      name: `${HISTORY_DIR}/history.json`,
      data: Buffer.from(`${JSON.stringify(historyJson(history, access), null, 2)}\n`, 'utf8'),
    },
  ];
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

export interface IndexStudy {
  study: ExportStudyRow;
  dir: string;
  series: Array<{ dir: string; modality: string | null; description: string | null; files: number }>;
}

/**
 * index.html: what the archive holds, readable offline in any browser. Static (no script, no
 * external resource, a policy that forbids both) and every value escaped.
 */
export function indexHtml(opts: {
  createdAt: Date;
  deidentified: boolean;
  studies: IndexStudy[];
  reports: Array<{ title: string; issued: Date; path: string }>;
  otherFiles: Array<{ path: string; description: string }>;
  leftOut: Array<{ what: string; reason: string }>;
}): Buffer {
  const e = (v: string | null | undefined) => escapeHtml(v ?? '');
  const studyRows = opts.studies
    .map(({ study, dir, series }) => {
      const seriesList = series
        .map(
          (s) =>
            `<li><code>DICOM/${e(dir)}/${e(s.dir)}/</code> ${e(s.modality ?? '')} ${e(s.description ?? '')} (${s.files} file${s.files === 1 ? '' : 's'})</li>`,
        )
        .join('');
      return `<tr><td>${e(study.studyDate ?? '')}</td><td>${e(study.studyDescription ?? 'Untitled study')}</td><td>${e(study.modalities.join(', '))}</td><td><code>DICOM/${e(dir)}/</code><ul>${seriesList}</ul></td></tr>`;
    })
    .join('\n');
  const reportRows = opts.reports
    .map(
      (r) => `<li><a href="${e(r.path)}">${e(r.title)}</a> (${e(r.issued.toISOString().slice(0, 10))})</li>`,
    )
    .join('\n');
  const other = opts.otherFiles
    .map((f) => `<li><a href="${e(f.path)}">${e(f.path)}</a>: ${e(f.description)}</li>`)
    .join('\n');
  const leftOut = opts.leftOut.map((l) => `<li>${e(l.what)}: ${e(l.reason)}</li>`).join('\n');
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Medical imaging export</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem;line-height:1.4}table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.4rem;text-align:left;vertical-align:top}code{font-size:.9em}</style>
</head>
<body>
<h1>Medical imaging export</h1>
<p>Made ${e(opts.createdAt.toISOString())}.${opts.deidentified ? ' The DICOM files are de-identified copies; reports and history are not included because they name you.' : ''}</p>
<h2>Studies (DICOM)</h2>
<p>The images are DICOM files indexed by <a href="${DICOMDIR_PATH}">DICOMDIR</a>: open this folder (or a CD burnt from it) with any DICOM viewer or import station.</p>
<table><thead><tr><th>Date</th><th>Study</th><th>Modalities</th><th>Folder</th></tr></thead>
<tbody>
${studyRows}
</tbody></table>
${opts.reports.length ? `<h2>Reports</h2>\n<ul>\n${reportRows}\n</ul>` : ''}
${other ? `<h2>Other files</h2>\n<ul>\n${other}\n</ul>` : ''}
${leftOut ? `<h2>Left out</h2>\n<ul>\n${leftOut}\n</ul>` : ''}
</body>
</html>
`;
  return Buffer.from(html, 'utf8');
}
