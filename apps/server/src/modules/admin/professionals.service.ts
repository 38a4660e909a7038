import type { ProfessionalApplication } from '@mi/contracts/admin';
import { AppError } from '../../http/app-error';
import type { AuditRecorder } from '../audit';
import type { RequestMeta } from '../../http/request-meta';
import type { MailService } from '../mail';
import { professionalApprovedEmail, professionalRejectedEmail } from '../mail';
import type { ProfessionalProfileRow, UserRow, UsersRepository } from '../accounts';
import { adminChanges, createRecentSignInRule, type RecentAdmin } from './recent-sign-in';

function toApplication({
  user,
  profile,
}: {
  user: UserRow;
  profile: ProfessionalProfileRow;
}): ProfessionalApplication {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    mobilePhone: user.mobilePhone,
    emailVerified: user.emailVerifiedAt !== null,
    accountStatus: user.accountStatus,
    rejectionReason: user.rejectionReason,
    createdAt: user.createdAt.toISOString(),
    license: {
      number: profile.licenseNumber,
      state: profile.licenseState,
      expiryDate: profile.licenseExpiryDate,
    },
    specialty: profile.specialty,
    hospital: profile.hospital,
    position: profile.position,
    reviewedAt: profile.reviewedAt?.toISOString() ?? null,
  };
}

/** Admins verify medical professionals' licences: approve, or reject with a reason; the applicant is emailed either way. */
export function createProfessionalsService(deps: {
  users: UsersRepository;
  audit: AuditRecorder;
  mail: MailService;
  appUrl: string;
  now: () => Date;
}) {
  async function decide(
    admin: RecentAdmin,
    id: string,
    decision: 'active' | 'rejected',
    reason: string | null,
    meta: RequestMeta,
  ) {
    const found = /^[0-9a-f-]{36}$/i.test(id) ? await deps.users.findProfessional(id) : undefined;
    if (!found) throw new AppError('NOT_FOUND', 'Application not found');
    const at = deps.now();
    const user = await deps.users.update(id, {
      accountStatus: decision,
      rejectionReason: reason,
      updatedAt: at,
    });
    await deps.users.markProfessionalReviewed(id, admin.id, at);
    await deps.audit({
      actorId: admin.id,
      actorRole: admin.role,
      action: 'user.status_change',
      outcome: 'success',
      targetType: 'user',
      targetId: id,
      requestId: meta.requestId,
      ip: meta.ip,
      details: { from: found.user.accountStatus, to: decision, role: 'professional' },
    });
    const name = found.user.name ?? 'there';
    await deps.mail.send(
      found.user.email,
      decision === 'active'
        ? professionalApprovedEmail({ name, appUrl: deps.appUrl })
        : professionalRejectedEmail({ name, reason: reason ?? '', appUrl: deps.appUrl }),
    );
    const after = await deps.users.findProfessional(id);
    return toApplication(after ?? { user: user ?? found.user, profile: found.profile });
  }

  return {
    async list(status: 'pending' | 'active' | 'rejected' | 'all'): Promise<ProfessionalApplication[]> {
      return (await deps.users.listProfessionals(status)).map(toApplication);
    },
    // Approving and rejecting are admin changes: a recent sign-in first (recent-sign-in.ts).
    ...adminChanges(createRecentSignInRule(deps), 'user.status_change', {
      approve: (admin: RecentAdmin, id: string, meta: RequestMeta) => decide(admin, id, 'active', null, meta),
      reject: (admin: RecentAdmin, id: string, reason: string, meta: RequestMeta) =>
        decide(admin, id, 'rejected', reason, meta),
    }),
  };
}
export type ProfessionalsService = ReturnType<typeof createProfessionalsService>;
