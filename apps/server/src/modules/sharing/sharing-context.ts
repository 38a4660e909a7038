import { type Provider, type Share } from '@mi/contracts/sharing';
import type { ChangeFeed } from '../../db/change-feed';
import type { AccessService } from '../access';
import type { AuditRecorder } from '../audit';
import type { DeidentifyService } from '../deidentify';
import type { RequestMeta } from '../../http/request-meta';
import type { Secrets } from '../auth';
import type { Throttle } from '../rate-limit';
import type { MailService } from '../mail';
import type { NotificationsService } from '../notifications';
import type { UserRow, UsersRepository } from '../accounts';
import type { AuditBuffer } from '../studies';
import type { ShareView, SharingRepository } from './sharing.repository';

/** What sharing needs from the provider directory (modules/providers), wired in services.ts. */
export interface ProviderDirectory {
  /** A provider this user may share with: a directory entry or their own contact. */
  findForUser(userId: string, providerId: string): Promise<Provider | undefined>;
  /** The user's provider for an email (a directory entry with it, or a new contact), in their network. */
  ensureContact(userId: string, email: string, meta?: RequestMeta): Promise<Provider>;
}

export interface SharingDeps {
  repo: SharingRepository;
  access: AccessService;
  users: Pick<UsersRepository, 'findById' | 'findByEmail' | 'update'>;
  providers: ProviderDirectory;
  notifications: Pick<NotificationsService, 'notify'>;
  mail: Pick<MailService, 'send'>;
  audit: AuditRecorder;
  throttle: Throttle;
  secrets: Pick<Secrets, 'hashCode' | 'sameHash'>;
  /** De-identified copies to share instead of the study (modules/deidentify). */
  deidentified: Pick<DeidentifyService, 'prepare'>;
  /** Change notifications that keep the Shared Studies lists cache current. */
  changes: ChangeFeed;
  /** Batched audit writes for the often-read Shared Studies list. */
  auditBuffer: Pick<AuditBuffer, 'record'>;
  appUrl: string;
  now: () => Date;
}

/** Shares a user may create per hour; beyond it they are told to wait. */
export const SHARES_PER_HOUR = 60;
export const SHARE_RATE_MESSAGE =
  'You have shared too many studies in the last hour. Please try again later.';
export const RECEIPT_EVENTS = 200;

/** A confirmed, active account: the only kind that receives what is addressed to an email. */
export const receives = (u: UserRow | undefined): u is UserRow =>
  !!u && u.accountStatus === 'active' && u.emailVerifiedAt !== null;

export type ShareResult = { message: string; data?: Share; pending?: boolean; jobId?: string };

export const displayName = (u: { name: string | null; email: string }) => u.name?.trim() || u.email;

export const record = (
  deps: SharingDeps,
  actor: { id: string; role: string | null },
  meta: RequestMeta,
  action: string,
  studyId: string,
  details?: Record<string, unknown>,
) =>
  deps.audit({
    actorId: actor.id,
    actorRole: actor.role,
    action,
    targetType: 'study',
    targetId: studyId,
    outcome: 'success',
    requestId: meta.requestId,
    ip: meta.ip,
    ...(details ? { details } : {}),
  });

/** The signed part of an emailed share link: proves whoever holds it received that email. */
export const linkToken = (deps: SharingDeps, shareId: string, emailNormalized: string) =>
  deps.secrets.hashCode('share-link', `${shareId}:${emailNormalized}`);

export async function toShareDtos(deps: SharingDeps, views: ShareView[]): Promise<Share[]> {
  const providers = new Map<string, Provider>();
  for (const v of views) {
    const id = v.share.providerId;
    if (!id || providers.has(id)) continue;
    const found = await deps.providers.findForUser(v.share.ownerId, id);
    if (found) providers.set(id, found);
  }
  return views.map((v) => ({
    _id: v.share.id,
    id: v.share.id,
    email: v.share.email,
    targetUser: v.target ? { _id: v.target.id, email: v.target.email, name: v.target.name } : null,
    createdAt: v.share.createdAt.toISOString(),
    accepted: v.share.targetUserId !== null,
    provider: (v.share.providerId && providers.get(v.share.providerId)) || null,
    study: {
      _id: v.study.id,
      studyId: v.study.studyInstanceUid,
      metadata: {
        studyDescription: v.study.studyDescription,
        patientName: v.study.patientName,
        modality: v.study.modalities.length ? v.study.modalities.join('/') : null,
        studyDate: v.study.studyDate,
      },
    },
  }));
}
