import type { InstanceHeader } from '../../dicom-archive/dicom-header';
import type { StudiesRepository } from '../studies';
import type { IngestRun, PendingInstance } from './ingest-run';

const instanceId = (h: InstanceHeader) => `${h.studyInstanceUid}|${h.sopInstanceUid}`;

/**
 * Keeps one copy of each instance: within the upload (the first readable copy of a SOP Instance UID
 * wins) and against what the owner already has (the same instance with the same size and CRC-32 is
 * indexed again but not stored again; a changed one replaces it).
 */
export class DedupeStage {
  private readonly seen = new Set<string>();

  constructor(
    private readonly run: IngestRun,
    private readonly repo: Pick<StudiesRepository, 'existingInstances'>,
  ) {}

  /** Whether an instance of this study and SOP Instance UID was already taken from this upload. */
  seenBefore(header: InstanceHeader): boolean {
    return this.seen.has(instanceId(header));
  }

  /** Takes the instance: later copies in this upload are duplicates. */
  take(header: InstanceHeader): void {
    this.seen.add(instanceId(header));
  }

  /**
   * Splits a batch into instances to store and unchanged ones (indexed on the run as they are), and
   * says how many bytes the new ones add to the owner's storage (less what the ones they replace held).
   */
  async againstStored(batch: PendingInstance[]): Promise<{ toStore: PendingInstance[]; addedBytes: number }> {
    const existing = await this.repo.existingInstances(
      this.run.upload.ownerId,
      batch.map((b) => ({ studyUid: b.header.studyInstanceUid, sopUid: b.header.sopInstanceUid })),
    );
    const same = new Set(existing.map((e) => `${e.studyUid}|${e.sopUid}|${e.sizeBytes}|${e.crc32}`));
    const oldSize = new Map(existing.map((e) => [`${e.studyUid}|${e.sopUid}`, e.sizeBytes]));
    const toStore: PendingInstance[] = [];
    let addedBytes = 0;
    for (const b of batch) {
      const id = instanceId(b.header);
      if (same.has(`${id}|${b.size}|${b.crc}`)) {
        this.run.summary.unchanged++;
        this.run.items.push({ header: b.header, sizeBytes: b.size, crc32: b.crc, storageKey: null });
        continue;
      }
      addedBytes += b.size - (oldSize.get(id) ?? 0);
      toStore.push(b);
    }
    return { toStore, addedBytes };
  }
}
