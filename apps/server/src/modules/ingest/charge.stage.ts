import type { UsersRepository } from '../accounts';
import { defaultQuotaBytes, quotaOf, requireWithinQuota, type Quota } from '../accounts';
import { IngestError } from '../../dicom-archive/zip-reader';
import type { IngestRun } from './ingest-run';

/** The upload owner's quota as processing begins; an IngestError when the account is gone. */
export async function ownerQuota(
  users: Pick<UsersRepository, 'findById'>,
  ownerId: string,
  defaultMaxStorageGB: number,
): Promise<Quota> {
  const owner = await users.findById(ownerId);
  if (!owner) throw new IngestError('The account no longer exists.');
  return quotaOf(owner, defaultQuotaBytes(defaultMaxStorageGB));
}

/**
 * Charges bytes a batch adds to the run and checks the quota (quota.ts) before anything of the batch
 * is stored: QuotaExceededError when the upload so far would go past it. Batches are charged one at
 * a time, in order, so each check sees every earlier batch; the index stage charges for good.
 */
export function chargeStage(run: IngestRun, addedBytes: number): void {
  run.addedBytes += addedBytes;
  requireWithinQuota(run.quota, run.addedBytes);
}
