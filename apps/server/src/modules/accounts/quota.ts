import { BYTES_PER_GB } from '@mi/contracts/rules';

/**
 * The storage quota: every user may keep up to their own limit (`maxStorageBytes`) or, without one,
 * the default (DEFAULT_MAX_STORAGE_GB; GB are 1024³ bytes). Every check of "would this exceed the
 * user's quota" (creating an upload, processing it, committing it) goes through `exceedsQuota`.
 */
export interface Quota {
  maxBytes: number;
  usedBytes: number;
  remainingBytes: number;
}

/** Stored bytes would go past the quota. */
export class QuotaExceededError extends Error {
  override readonly name = 'QuotaExceededError';
  constructor(readonly maxBytes: number) {
    super('storage quota exceeded');
  }
}

/** The default quota in bytes. */
export function defaultQuotaBytes(defaultMaxStorageGB: number): number {
  return Math.round(defaultMaxStorageGB * BYTES_PER_GB);
}

/** A user's storage quota in bytes: their own limit, or the default one. */
export function quotaOf(
  user: { maxStorageBytes: number | null; usedStorageBytes: number },
  defaultMaxBytes: number,
): Quota {
  const maxBytes = user.maxStorageBytes ?? defaultMaxBytes;
  return {
    maxBytes,
    usedBytes: user.usedStorageBytes,
    remainingBytes: Math.max(0, maxBytes - user.usedStorageBytes),
  };
}

/** The quota rule: whether storing `addedBytes` more (negative when files shrink) would go past it. */
export function exceedsQuota(quota: Pick<Quota, 'maxBytes' | 'usedBytes'>, addedBytes: number): boolean {
  return quota.usedBytes + addedBytes > quota.maxBytes;
}

/** Throws QuotaExceededError when storing `addedBytes` more would go past the quota. */
export function requireWithinQuota(quota: Pick<Quota, 'maxBytes' | 'usedBytes'>, addedBytes: number): void {
  if (exceedsQuota(quota, addedBytes)) throw new QuotaExceededError(quota.maxBytes);
}

/** A quota as the messages about it say it: GB with at most two decimals. */
export function quotaGB(maxBytes: number): number {
  return Math.round((maxBytes / BYTES_PER_GB) * 100) / 100;
}
