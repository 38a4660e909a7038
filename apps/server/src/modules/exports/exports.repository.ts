import { and, asc, desc, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  analysisServices,
  auditEvents,
  dataExports,
  type ExportFileRecord,
  instances,
  orders,
  providers,
  series,
  studies,
  studyLinks,
  studyLinkStudies,
  studyShares,
} from '../../db/schema/index';

export type ExportRow = typeof dataExports.$inferSelect;

/** A study as an export lists it (its owner's own, completed, not being deleted). */
export interface ExportStudyRow {
  id: string;
  studyInstanceUid: string;
  patientName: string | null;
  patientId: string | null;
  studyDate: string | null;
  studyTime: string | null;
  studyDescription: string | null;
  accessionNumber: string | null;
  modalities: string[];
  seriesCount: number;
  instanceCount: number;
  sizeBytes: number;
}

export interface ExportSeriesRow {
  id: string;
  studyId: string;
  seriesInstanceUid: string;
  modality: string | null;
  seriesNumber: number | null;
  seriesDescription: string | null;
}

export interface ExportInstanceRow {
  sopInstanceUid: string;
  sopClassUid: string | null;
  transferSyntaxUid: string | null;
  instanceNumber: number | null;
  sizeBytes: number;
  crc32: number;
  storageKey: string;
  storageOffset: number;
}

/** At most this many audit events go into one export's access history. */
export const HISTORY_EVENTS_LIMIT = 100_000;

const isUniqueViolation = (err: unknown) => {
  const e = err as { code?: string; cause?: { code?: string } };
  return (e.code ?? e.cause?.code) === '23505';
};

const studyColumns = {
  id: studies.id,
  studyInstanceUid: studies.studyInstanceUid,
  patientName: studies.patientName,
  patientId: studies.patientId,
  studyDate: studies.studyDate,
  studyTime: studies.studyTime,
  studyDescription: studies.studyDescription,
  accessionNumber: studies.accessionNumber,
  modalities: studies.modalities,
  seriesCount: studies.seriesCount,
  instanceCount: studies.instanceCount,
  sizeBytes: studies.sizeBytes,
};

const ownLive = (ownerId: string) =>
  and(eq(studies.ownerId, ownerId), eq(studies.processStatus, 'completed'), isNull(studies.deletingSince));

/** What an export holds: the owner's studies, their series and files. */
function createExportContentsRepository(db: Db) {
  return {
    /** The owner's studies that an export may hold, oldest study first. */
    ownStudies(ownerId: string, ids?: string[]): Promise<ExportStudyRow[]> {
      if (ids && !ids.length) return Promise.resolve([]);
      return db
        .select(studyColumns)
        .from(studies)
        .where(and(ownLive(ownerId), ids ? inArray(studies.id, ids) : undefined))
        .orderBy(asc(studies.studyDate), asc(studies.createdAt), asc(studies.id));
    },

    seriesOf(studyId: string): Promise<ExportSeriesRow[]> {
      return db
        .select({
          id: series.id,
          studyId: series.studyId,
          seriesInstanceUid: series.seriesInstanceUid,
          modality: series.modality,
          seriesNumber: series.seriesNumber,
          seriesDescription: series.seriesDescription,
        })
        .from(series)
        .where(eq(series.studyId, studyId))
        .orderBy(asc(series.seriesNumber), asc(series.createdAt), asc(series.id));
    },

    /** One series' files, in instance order (one series at a time keeps memory flat). */
    instancesOf(seriesId: string): Promise<ExportInstanceRow[]> {
      return db
        .select({
          sopInstanceUid: instances.sopInstanceUid,
          sopClassUid: instances.sopClassUid,
          transferSyntaxUid: instances.transferSyntaxUid,
          instanceNumber: instances.instanceNumber,
          sizeBytes: instances.sizeBytes,
          crc32: instances.crc32,
          storageKey: instances.storageKey,
          storageOffset: instances.storageOffset,
        })
        .from(instances)
        .where(eq(instances.seriesId, seriesId))
        .orderBy(asc(instances.instanceNumber), asc(instances.sopInstanceUid));
    },
  };
}

/** What the export's HISTORY folder holds: shares, links, orders and access events of its studies. */
function createExportHistoryRepository(db: Db) {
  return {
    sharesOf(studyIds: string[]) {
      if (!studyIds.length) return Promise.resolve([]);
      return db
        .select({
          id: studyShares.id,
          studyId: studyShares.studyId,
          email: studyShares.email,
          createdAt: studyShares.createdAt,
          revokedAt: studyShares.revokedAt,
          firstOpenedAt: studyShares.firstOpenedAt,
        })
        .from(studyShares)
        .where(inArray(studyShares.studyId, studyIds))
        .orderBy(asc(studyShares.createdAt));
    },

    linksOf(ownerId: string, studyIds: string[]) {
      if (!studyIds.length) return Promise.resolve([]);
      return db
        .select({
          id: studyLinks.id,
          studyId: studyLinkStudies.studyId,
          mode: studyLinks.mode,
          label: studyLinks.label,
          allowDownload: studyLinks.allowDownload,
          opens: studyLinks.opens,
          maxOpens: studyLinks.maxOpens,
          createdAt: studyLinks.createdAt,
          expiresAt: studyLinks.expiresAt,
          pausedAt: studyLinks.pausedAt,
          revokedAt: studyLinks.revokedAt,
          lastOpenedAt: studyLinks.lastOpenedAt,
          lastRecipient: studyLinks.lastRecipient,
        })
        .from(studyLinks)
        .innerJoin(studyLinkStudies, eq(studyLinkStudies.linkId, studyLinks.id))
        .where(and(eq(studyLinks.ownerId, ownerId), inArray(studyLinkStudies.studyId, studyIds)))
        .orderBy(asc(studyLinks.createdAt));
    },

    ordersOf(ownerId: string, studyIds: string[]) {
      if (!studyIds.length) return Promise.resolve([]);
      return db
        .select({
          id: orders.id,
          studyId: orders.studyId,
          service: analysisServices.name,
          provider: providers.name,
          status: orders.status,
          costCents: orders.costCents,
          createdAt: orders.createdAt,
          paidAt: orders.paidAt,
          refundedAt: orders.refundedAt,
          refundReason: orders.refundReason,
        })
        .from(orders)
        .innerJoin(analysisServices, eq(analysisServices.id, orders.serviceId))
        .innerJoin(providers, eq(providers.id, orders.providerId))
        .where(and(eq(orders.userId, ownerId), inArray(orders.studyId, studyIds)))
        .orderBy(asc(orders.createdAt));
    },

    /** Audit events about these studies, shares, links and orders, oldest first. */
    accessEventsOf(targetIds: string[]) {
      if (!targetIds.length) return Promise.resolve([]);
      return db
        .select({
          at: auditEvents.at,
          actorId: auditEvents.actorId,
          actorRole: auditEvents.actorRole,
          action: auditEvents.action,
          targetType: auditEvents.targetType,
          targetId: auditEvents.targetId,
          outcome: auditEvents.outcome,
          details: auditEvents.details,
        })
        .from(auditEvents)
        .where(inArray(auditEvents.targetId, targetIds))
        .orderBy(asc(auditEvents.at), asc(auditEvents.id))
        .limit(HISTORY_EVENTS_LIMIT);
    },
  };
}

/** Export rows: queued, built, ready, failed, expired. */
function createExportRowsRepository(db: Db) {
  return {
    /** A new queued export; null when the owner already has one queued or building. */
    async insert(row: {
      ownerId: string;
      studyIds: string[];
      deidentify: boolean;
      iso: boolean;
      now: Date;
    }): Promise<ExportRow | null> {
      try {
        const [created] = await db
          .insert(dataExports)
          .values({ ...row, createdAt: row.now, updatedAt: row.now })
          .returning();
        return created!;
      } catch (err) {
        if (isUniqueViolation(err)) return null;
        throw err;
      }
    },

    async find(id: string): Promise<ExportRow | undefined> {
      const [row] = await db.select().from(dataExports).where(eq(dataExports.id, id));
      return row;
    },

    listFor(ownerId: string, limit = 20): Promise<ExportRow[]> {
      return db
        .select()
        .from(dataExports)
        .where(eq(dataExports.ownerId, ownerId))
        .orderBy(desc(dataExports.createdAt))
        .limit(limit);
    },

    /** The owner's export still queued or building, if any. */
    async runningFor(ownerId: string): Promise<ExportRow | undefined> {
      const [row] = await db
        .select()
        .from(dataExports)
        .where(and(eq(dataExports.ownerId, ownerId), inArray(dataExports.status, ['queued', 'building'])));
      return row;
    },

    /** Moves a queued or building export to building (a retry after a crash starts over). */
    async startBuilding(id: string, now: Date): Promise<ExportRow | undefined> {
      const [row] = await db
        .update(dataExports)
        .set({ status: 'building', progress: 0, files: [], updatedAt: now })
        .where(and(eq(dataExports.id, id), inArray(dataExports.status, ['queued', 'building'])))
        .returning();
      return row;
    },

    async setProgress(id: string, progress: number, now: Date): Promise<void> {
      await db
        .update(dataExports)
        .set({ progress, updatedAt: now })
        .where(and(eq(dataExports.id, id), eq(dataExports.status, 'building')));
    },

    async markReady(id: string, files: ExportFileRecord[], now: Date, expiresAt: Date): Promise<boolean> {
      const rows = await db
        .update(dataExports)
        .set({ status: 'ready', progress: 100, files, readyAt: now, expiresAt, updatedAt: now })
        .where(and(eq(dataExports.id, id), eq(dataExports.status, 'building')))
        .returning({ id: dataExports.id });
      return rows.length > 0;
    },

    async markFailed(id: string, error: string, now: Date): Promise<void> {
      await db
        .update(dataExports)
        .set({ status: 'failed', error, files: [], updatedAt: now })
        .where(and(eq(dataExports.id, id), inArray(dataExports.status, ['queued', 'building'])));
    },

    async markExpired(id: string, now: Date): Promise<void> {
      await db
        .update(dataExports)
        .set({ status: 'expired', files: [], updatedAt: now })
        .where(eq(dataExports.id, id));
    },

    /** Ready exports past their expiry, and builds that stopped reporting progress before `stalledBefore`. */
    due(now: Date, stalledBefore: Date): Promise<ExportRow[]> {
      return db
        .select()
        .from(dataExports)
        .where(
          or(
            and(eq(dataExports.status, 'ready'), lt(dataExports.expiresAt, now)),
            and(
              inArray(dataExports.status, ['queued', 'building']),
              lt(dataExports.updatedAt, stalledBefore),
            ),
          ),
        )
        .limit(500);
    },
  };
}

/** Exports and what they are built from: the owner's studies, their files and their history. */
export function createExportsRepository(db: Db) {
  return {
    ...createExportContentsRepository(db),
    ...createExportHistoryRepository(db),
    ...createExportRowsRepository(db),
  };
}
export type ExportsRepository = ReturnType<typeof createExportsRepository>;
