import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { z } from 'zod';
import { type CreateExportRequest, type DataExport, EXPORT_KEEP_DAYS } from '@mi/contracts/exports';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { JobQueue } from '../../jobs/queue';
import type { ObjectStorage } from '../../ports/storage/storage';
import { type AccessService, sessionPrincipal } from '../access';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession } from '../auth';
import type { NotificationEvent } from '../notifications';
import {
  type Deidentifier,
  type ExportBundleBuilder,
  exportEntries,
  exportExtras,
  ExportProblem,
  zipReadable,
  type ZipSpan,
} from './export-builder';
import { isoReadable } from './export-iso';
import type { ExportRow, ExportsRepository } from './exports.repository';

export const buildExportPayload = z.object({
  exportId: z.uuid(),
  /** The owner, so pending jobs can be listed per user. */
  userId: z.uuid(),
});

/** The build-export job as the service sends it; build-export.job.ts adds the handler that calls `build`. */
export const BUILD_EXPORT = { name: 'build-export', payload: buildExportPayload } as const;

export interface ExportsServiceDeps {
  repo: ExportsRepository;
  storage: ObjectStorage;
  access: Pick<AccessService, 'requireOwner'>;
  audit: AuditRecorder;
  queue: Pick<JobQueue, 'send'>;
  notify: (userId: string, event: NotificationEvent) => Promise<void>;
  /** modules/fhir `exportBundle`. */
  bundle: ExportBundleBuilder;
  /** The PS3.15 de-identifier; without it `deidentify: true` is refused as not available yet. */
  deidentify?: Deidentifier;
  now: () => Date;
}

const DAY_MS = 24 * 3600 * 1000;
/** A build that has not reported progress for this long has lost its process: it is failed and cleaned up. */
export const EXPORT_STALLED_AFTER_MS = 30 * 60 * 1000;
/** Progress is written at most this often (and whenever a whole percent passes). */
const PROGRESS_HEARTBEAT_MS = 30_000;

const NOT_FOUND = 'This export does not exist or has expired.';
const prefixOf = (id: string) => `exports/${id}`;

function fileUrl(id: string, name: string) {
  return `/api/exports/${id}/files/${encodeURIComponent(name)}`;
}

export function toExportDto(row: ExportRow): DataExport {
  return {
    id: row.id,
    status: row.status,
    progress: row.progress,
    studyCount: row.studyIds.length,
    deidentify: row.deidentify,
    iso: row.iso,
    files:
      row.status === 'ready'
        ? row.files.map((f) => ({ name: f.name, size: f.size, url: fileUrl(row.id, f.name) }))
        : [],
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    readyAt: row.readyAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}

/** Audit records, and an export found, expired or failed. */
function createExportTools(deps: ExportsServiceDeps) {
  const { repo, storage } = deps;

  async function audit(
    userId: string,
    role: string | null,
    action: string,
    targetId: string | null,
    outcome: 'success' | 'denied' | 'failure',
    meta: RequestMeta,
    details: Record<string, unknown> = {},
  ) {
    await deps.audit({
      actorId: userId,
      actorRole: role,
      action,
      targetType: 'export',
      targetId,
      outcome,
      requestId: meta.requestId,
      ip: meta.ip,
      details,
    });
  }

  /** Deletes an export's files and marks it expired (its time is up). */
  async function expire(row: ExportRow): Promise<ExportRow> {
    await storage.deletePrefix(prefixOf(row.id));
    await repo.markExpired(row.id, deps.now());
    return { ...row, status: 'expired', files: [] };
  }

  /** The row as its owner sees it now: a ready export past its time is expired on the spot. */
  async function current(row: ExportRow): Promise<ExportRow> {
    if (row.status === 'ready' && row.expiresAt && row.expiresAt <= deps.now()) return expire(row);
    return row;
  }

  /** The owner's export, or the one 404 for anyone else and for a malformed id. */
  async function ownExport(userId: string, id: string): Promise<ExportRow> {
    const row = /^[0-9a-f-]{36}$/i.test(id) ? await repo.find(id.toLowerCase()) : undefined;
    if (!row || row.ownerId !== userId) throw new AppError('NOT_FOUND', NOT_FOUND);
    return current(row);
  }

  async function fail(id: string, message: string) {
    await storage.deletePrefix(prefixOf(id)).catch(() => undefined);
    await repo.markFailed(id, message, deps.now());
  }

  return { repo, storage, audit, expire, current, ownExport, fail };
}
type ExportTools = ReturnType<typeof createExportTools>;

/** The owner asks for an export and follows it. */
function createExportRequests(deps: ExportsServiceDeps, tools: ExportTools) {
  const { repo, audit, current, ownExport, fail } = tools;
  return {
    async create(
      auth: AuthenticatedSession,
      body: CreateExportRequest,
      meta: RequestMeta,
    ): Promise<{ id: string }> {
      const p = sessionPrincipal(auth);
      if (body.deidentify && !deps.deidentify)
        throw new AppError(
          'BAD_REQUEST',
          'De-identified exports are not available yet. Export without de-identification, or try again later.',
        );
      let studyIds: string[];
      if (body.studyIds) {
        const wanted = [...new Set(body.studyIds.map((s) => s.toLowerCase()))];
        // The one access rule: a study that is not the caller's own is the one 404 (audited).
        for (const id of wanted)
          await deps.access.requireOwner(p, id, meta, { auditAction: 'export.create' });
        const own = new Set((await repo.ownStudies(p.userId, wanted)).map((s) => s.id));
        const missing = wanted.find((id) => !own.has(id));
        if (missing) throw new AppError('NOT_FOUND', 'Study not found.');
        studyIds = wanted;
      } else {
        studyIds = (await repo.ownStudies(p.userId)).map((s) => s.id);
        if (!studyIds.length)
          throw new AppError(
            'BAD_REQUEST',
            'You have no studies to export yet. Upload a study first, then export your data.',
          );
      }
      // A build whose process died long ago must not block the owner forever.
      const running = await repo.runningFor(p.userId);
      if (running && running.updatedAt.getTime() < deps.now().getTime() - EXPORT_STALLED_AFTER_MS)
        await fail(running.id, 'The export stopped before it finished. Please start it again.');
      const row = await repo.insert({
        ownerId: p.userId,
        studyIds,
        deidentify: body.deidentify ?? false,
        iso: body.iso ?? false,
        now: deps.now(),
      });
      if (!row)
        throw new AppError(
          'CONFLICT',
          'An export is already being prepared. You can start another one when it is ready.',
        );
      await deps.queue.send(BUILD_EXPORT, { exportId: row.id, userId: p.userId }, { singletonKey: row.id });
      await audit(p.userId, p.role, 'export.create', row.id, 'success', meta, {
        studies: studyIds.length,
        deidentify: row.deidentify,
        iso: row.iso,
      });
      return { id: row.id };
    },

    async get(auth: AuthenticatedSession, id: string): Promise<DataExport> {
      return toExportDto(await ownExport(auth.user.id, id));
    },

    async list(auth: AuthenticatedSession): Promise<DataExport[]> {
      const rows = await repo.listFor(auth.user.id);
      return (await Promise.all(rows.map(current))).map(toExportDto);
    },
  };
}

/** An export's archive files: downloaded while ready, deleted once expired or abandoned. */
function createExportFiles(deps: ExportsServiceDeps, tools: ExportTools) {
  const { repo, storage, audit, expire, ownExport, fail } = tools;
  return {
    /**
     * One file of a ready export: its length and a stream of the asked range (resume). Audited on
     * every request, with the range, so a resumed download shows as its parts.
     */
    async download(
      auth: AuthenticatedSession,
      id: string,
      name: string,
      range: (length: number) => { start: number; end: number } | 'unsatisfiable' | null,
      meta: RequestMeta,
    ): Promise<{
      name: string;
      contentType: string;
      length: number;
      etag: string;
      range: { start: number; end: number } | 'unsatisfiable' | null;
      open: () => Promise<Readable>;
    }> {
      const userId = auth.user.id;
      let row: ExportRow;
      try {
        row = await ownExport(userId, id);
      } catch (err) {
        await audit(userId, auth.user.role, 'export.download', id.slice(0, 64), 'denied', meta);
        throw err;
      }
      const file = row.status === 'ready' ? row.files.find((f) => f.name === name) : undefined;
      if (!file) throw new AppError('NOT_FOUND', NOT_FOUND);
      const r = range(file.size);
      await audit(userId, auth.user.role, 'export.download', row.id, 'success', meta, {
        file: file.name,
        ...(r && r !== 'unsatisfiable' ? { range: `${r.start}-${r.end}` } : {}),
      });
      return {
        name: file.name,
        contentType: file.contentType,
        length: file.size,
        etag: `"${row.id}-${file.size}"`,
        range: r,
        open: () =>
          storage.get(
            file.storageKey,
            r && r !== 'unsatisfiable' ? { start: r.start, end: r.end } : undefined,
          ),
      };
    },

    /** expire-exports: deletes expired exports' files and cleans up builds whose process stopped. */
    async cleanup(log: Logger): Promise<{ expired: number; abandoned: number }> {
      const now = deps.now();
      const due = await repo.due(now, new Date(now.getTime() - EXPORT_STALLED_AFTER_MS));
      let expired = 0;
      let abandoned = 0;
      for (const row of due) {
        try {
          if (row.status === 'ready') {
            await expire(row);
            expired++;
          } else {
            await fail(row.id, 'The export stopped before it finished. Please start it again.');
            abandoned++;
          }
        } catch (err) {
          log.error({ err, exportId: row.id }, 'could not clean up an export');
        }
      }
      return { expired, abandoned };
    },
  };
}

/** The job that builds an export's archive. */
function createExportBuild(deps: ExportsServiceDeps, tools: ExportTools) {
  const { repo, storage, fail } = tools;
  return {
    /** The build-export job: lays out the archive and streams it into storage, reporting progress. */
    async build(exportId: string, log: Logger): Promise<void> {
      const row = await repo.startBuilding(exportId, deps.now());
      // Ready, failed or expired meanwhile (a duplicate or late run): nothing to do.
      if (!row) return;
      await storage.deletePrefix(prefixOf(row.id));
      try {
        const studies = await repo.ownStudies(row.ownerId, row.studyIds);
        if (!studies.length) throw new ExportProblem('None of the chosen studies exist any more.');
        const at = deps.now();
        const req = {
          exportId: row.id,
          ownerId: row.ownerId,
          studyIds: studies.map((s) => s.id),
          deidentify: row.deidentify,
          at,
        };
        const buildDeps = { repo, storage, bundle: deps.bundle, deidentify: deps.deidentify };
        const extras = await exportExtras(buildDeps, req, studies);
        // With a disc image every byte is written twice: once into the ZIP, once into the image.
        const total = Math.max(1, studies.reduce((n, s) => n + s.sizeBytes, 0) * (row.iso ? 2 : 1));
        let written = 0;
        let reported = 0;
        let reportedAt = Date.now();
        let progressWrite: Promise<void> = Promise.resolve();
        const onBytes = (n: number) => {
          written += n;
          const pct = Math.min(99, Math.floor((written * 100) / total));
          if (pct > reported || Date.now() - reportedAt > PROGRESS_HEARTBEAT_MS) {
            reported = pct;
            reportedAt = Date.now();
            progressWrite = progressWrite
              .then(() => repo.setProgress(row.id, pct, deps.now()))
              .catch((err: unknown) => log.warn({ err }, 'export progress not recorded'));
          }
        };
        const name = `medical-imaging-export-${at.toISOString().slice(0, 10)}.zip`;
        const key = `${prefixOf(row.id)}/${name}`;
        const spans: ZipSpan[] = [];
        const stat = await storage.put(
          key,
          zipReadable(exportEntries(buildDeps, req, studies, extras), at, onBytes, spans),
          {
            contentType: 'application/zip',
          },
        );
        const files = [{ name, size: stat.size, storageKey: key, contentType: 'application/zip' }];
        if (row.iso) {
          // The same files as a disc image, read back from the ZIP just written (docs/export.md).
          const isoName = name.replace(/\.zip$/, '.iso');
          const isoKey = `${prefixOf(row.id)}/${isoName}`;
          const contentType = 'application/x-iso9660-image';
          const isoStat = await storage.put(isoKey, isoReadable(storage, key, spans, { at, onBytes }), {
            contentType,
          });
          files.push({ name: isoName, size: isoStat.size, storageKey: isoKey, contentType });
        }
        await progressWrite;
        const now = deps.now();
        const ready = await repo.markReady(
          row.id,
          files,
          now,
          new Date(now.getTime() + EXPORT_KEEP_DAYS * DAY_MS),
        );
        if (!ready) {
          await storage.deletePrefix(prefixOf(row.id));
          return;
        }
        log.info(
          { exportId: row.id, studies: studies.length, bytes: files.reduce((n, f) => n + f.size, 0) },
          'export ready',
        );
        await deps.notify(row.ownerId, {
          type: 'system',
          title: 'Your data export is ready',
          description: `Download it from Settings within ${EXPORT_KEEP_DAYS} days.`,
          path: '/settings',
        });
      } catch (err) {
        const message =
          err instanceof ExportProblem ? err.message : 'The export could not be built. Please try again.';
        log.error({ err, exportId: row.id }, 'export failed');
        await fail(row.id, message);
        await deps.notify(row.ownerId, {
          type: 'system',
          title: 'Your data export could not be made',
          description: message,
          path: '/settings',
        });
      }
    },
  };
}

/**
 * 'Export my data': a patient's own studies, reports, FHIR Bundle and history in one ZIP, built by
 * the build-export job and kept EXPORT_KEEP_DAYS days. Only the owner ever sees an export: anyone
 * else (an admin, a professional with an order for the study) gets the same 404 as for a missing
 * one. One export at a time per user (a partial unique index holds it across processes). Nothing
 * counts against the storage quota.
 */
export function createExportsService(deps: ExportsServiceDeps) {
  const tools = createExportTools(deps);
  return {
    ...createExportRequests(deps, tools),
    ...createExportFiles(deps, tools),
    ...createExportBuild(deps, tools),
  };
}
export type ExportsService = ReturnType<typeof createExportsService>;
