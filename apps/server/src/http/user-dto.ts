import type { User } from '@mi/contracts/auth';
import { BYTES_PER_GB } from '@mi/contracts/rules';
import type { UserRow } from '../modules/accounts';

/**
 * The spec's User shape, wherever the API answers with an account (sign-in, MFA, /auth/me, the
 * profile). Only these fields ever leave the server (the response schema enforces it).
 */
export function toUserDto(row: UserRow, defaultMaxStorageGB: number): User {
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    role: row.role,
    accountStatus: row.accountStatus,
    rejectionReason: row.accountStatus === 'rejected' ? row.rejectionReason : null,
    dateOfBirth: row.dateOfBirth,
    mobilePhone: row.mobilePhone,
    shareMedicalData: row.shareMedicalData,
    mfaEnabled: row.mfaEnabled,
    mfaMethod: row.mfaMethod,
    totpEnrolled: row.totpSecret !== null,
    emailNotifications: row.emailNotifications,
    smsNotifications: row.smsNotifications,
    welcomeModalShown: row.welcomeModalShown,
    emailVerified: row.emailVerifiedAt !== null,
    termsAcceptedAt: row.termsAcceptedAt?.toISOString() ?? null,
    shareMedicalDataUpdatedAt: row.shareMedicalDataUpdatedAt?.toISOString() ?? null,
    uploadLimits: {
      currentStorageGB: round(row.usedStorageBytes / BYTES_PER_GB),
      maxStorageGB:
        row.maxStorageBytes !== null ? round(row.maxStorageBytes / BYTES_PER_GB) : defaultMaxStorageGB,
    },
    createdAt: row.createdAt.toISOString(),
    hasPassword: row.passwordHash !== null,
    googleLinked: row.googleSub !== null,
    passwordChangeRequired: row.passwordChangeRequired,
  };
}
