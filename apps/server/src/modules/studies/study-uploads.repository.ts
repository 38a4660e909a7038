import { and, eq, inArray, sql } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import type { Db, SqlExecutor } from '../../db/client';
import { transactionSql } from '../../db/transaction-sql';
import { instances, notifications, studyUploads, uploadObjects } from '../../db/schema/index';
import { chunks } from './study-instances.repository';

export type UploadRow = typeof studyUploads.$inferSelect;
export type NewNotification = Omit<typeof notifications.$inferInsert, 'id'>;

/**
 * Uploads being processed (study_uploads) and the objects each run writes (upload_objects), so a
 * run that dies leaves nothing behind that nobody deletes.
 */
export function createStudyUploadsRepository(db: Db) {
  return {
    async findUploadByObjectName(objectName: string): Promise<UploadRow | undefined> {
      const [row] = await db
        .select()
        .from(studyUploads)
        .where(eq(studyUploads.objectName, objectName))
        .limit(1);
      return row;
    },
    async findUpload(id: string): Promise<UploadRow | undefined> {
      const [row] = await db.select().from(studyUploads).where(eq(studyUploads.id, id)).limit(1);
      return row;
    },
    /**
     * Creates the upload record unless one exists for this object; returns the row either way. With
     * `queue`, a record created here gets its processing job in the same transaction (the job id is
     * the upload's id): the two are never written one without the other, and the request that
     * created them waits for one commit instead of three.
     */
    async ensureUpload(
      values: {
        ownerId: string;
        objectName: string;
        uploadType: 'regular' | 'shared';
        sizeBytes: number;
        /** Who sent the files; for a shared upload the invitee (ownerId is the inviter). */
        uploadedBy?: string;
        invitationId?: string;
      },
      queue?: (upload: UploadRow, within: SqlExecutor) => Promise<unknown>,
    ): Promise<{ row: UploadRow; created: boolean }> {
      const id = randomUUID();
      const insert = (into: Db) =>
        into
          .insert(studyUploads)
          .values({ ...values, id, ...(queue ? { jobId: id } : {}) })
          .onConflictDoNothing({ target: studyUploads.objectName })
          .returning();
      const [created] = queue
        ? await db.transaction(async (tx) => {
            const rows = await insert(tx as unknown as Db);
            if (rows[0]) await queue(rows[0], transactionSql(tx as unknown as Db));
            return rows;
          })
        : await insert(db);
      if (created) return { row: created, created: true };
      const existing = await this.findUploadByObjectName(values.objectName);
      if (!existing) throw new Error('upload record vanished');
      return { row: existing, created: false };
    },
    async setUploadJob(id: string, jobId: string): Promise<void> {
      await db.update(studyUploads).set({ jobId }).where(eq(studyUploads.id, id));
    },
    /**
     * Counts an attempt. Committed without waiting for the write-ahead log's flush: this update sits
     * between the job's start and its work, and only a crash of the database server itself within a
     * fraction of a second could lose it, which costs one uncounted attempt, never data.
     */
    async markProcessing(id: string): Promise<number> {
      return db.transaction(async (tx) => {
        await tx.execute(sql`set local synchronous_commit = off`);
        const [row] = await tx
          .update(studyUploads)
          .set({ status: 'processing', attempts: sql`${studyUploads.attempts} + 1` })
          .where(eq(studyUploads.id, id))
          .returning({ attempts: studyUploads.attempts });
        return row?.attempts ?? 0;
      });
    },
    async setUploadSummary(id: string, summary: Record<string, unknown>): Promise<void> {
      await db.update(studyUploads).set({ summary }).where(eq(studyUploads.id, id));
    },
    /** Marks the upload failed and leaves the owner (and a shared upload's sender) a notification, in one transaction. */
    async failUpload(
      id: string,
      reason: string,
      summary: Record<string, unknown>,
      notification: NewNotification | NewNotification[],
    ): Promise<void> {
      await db.transaction(async (tx) => {
        const [row] = await tx
          .update(studyUploads)
          .set({ status: 'failed', reason, summary, finishedAt: new Date() })
          .where(and(eq(studyUploads.id, id), inArray(studyUploads.status, ['queued', 'processing'])))
          .returning({ id: studyUploads.id });
        if (row) await tx.insert(notifications).values([notification].flat());
      });
    },

    /** Uploads left queued or processing by a run that died long ago. */
    async staleUploads(olderThan: Date): Promise<UploadRow[]> {
      return db
        .select()
        .from(studyUploads)
        .where(
          and(
            inArray(studyUploads.status, ['queued', 'processing']),
            sql`${studyUploads.createdAt} < ${olderThan}`,
          ),
        );
    },
  };
}
export type StudyUploadsRepository = ReturnType<typeof createStudyUploadsRepository>;

/** The objects each upload run writes (upload_objects), until they are indexed or deleted. */
export function createUploadObjectsRepository(db: Db) {
  return {
    async recordIntents(uploadId: string, keys: string[]): Promise<void> {
      for (const part of chunks(keys)) {
        await db
          .insert(uploadObjects)
          .values(part.map((storageKey) => ({ uploadId, storageKey })))
          .onConflictDoNothing();
      }
    },
    /** Objects this upload wrote (or replaced) that no instance references. */
    async unindexedIntents(uploadId: string): Promise<string[]> {
      const rows = await db
        .select({ key: uploadObjects.storageKey })
        .from(uploadObjects)
        .where(
          and(
            eq(uploadObjects.uploadId, uploadId),
            sql`not exists (select 1 from ${instances} i where i.storage_key = ${uploadObjects.storageKey})`,
          ),
        );
      return rows.map((r) => r.key);
    },
    async clearIntents(uploadId: string): Promise<void> {
      await db.delete(uploadObjects).where(eq(uploadObjects.uploadId, uploadId));
    },
  };
}
export type UploadObjectsRepository = ReturnType<typeof createUploadObjectsRepository>;
