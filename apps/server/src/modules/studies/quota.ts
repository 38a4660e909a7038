import { BYTES_PER_GB } from '@mi/contracts/rules';

/** A user's storage quota in bytes (spec §9: GB are 1024^3 bytes). */
export function quotaOf(
  user: { maxStorageBytes: number | null; usedStorageBytes: number },
  defaultMaxStorageGB: number,
) {
  const maxBytes = user.maxStorageBytes ?? Math.round(defaultMaxStorageGB * BYTES_PER_GB);
  return {
    maxBytes,
    usedBytes: user.usedStorageBytes,
    remainingBytes: Math.max(0, maxBytes - user.usedStorageBytes),
  };
}
