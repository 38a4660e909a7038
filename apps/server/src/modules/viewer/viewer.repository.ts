import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { studies } from '../../db/schema/index';

/** Where a study stands in its preparation for the viewer (status.transfer). */
export type TransferStatus = 'pending' | 'processing' | 'completed' | 'failed';

/** A study's preparation for the viewer. */
export function createViewerRepository(db: Db) {
  return {
    async setTransferStatus(studyId: string, status: TransferStatus): Promise<void> {
      await db.update(studies).set({ transferStatus: status }).where(eq(studies.id, studyId));
    },

    /**
     * Marks the study prepared unless it changed while it was being prepared: adding or replacing
     * instances resets its status (a trigger on `instances`, migration 0008), and then nothing is marked.
     */
    async completeTransferIfUnchanged(studyId: string): Promise<boolean> {
      const rows = await db
        .update(studies)
        .set({ transferStatus: 'completed' })
        .where(and(eq(studies.id, studyId), eq(studies.transferStatus, 'processing')))
        .returning({ id: studies.id });
      return rows.length > 0;
    },
  };
}
export type ViewerRepository = ReturnType<typeof createViewerRepository>;
