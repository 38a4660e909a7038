import { type RecentSignInRule } from '../admin';
import { type AdminProvider, type Provider, type ProviderInput } from '@mi/contracts/sharing';
import type { ProfessionalProfile } from '@mi/contracts/directory';
import { normalizeEmail } from '@mi/contracts/rules';
import { AppError } from '../../http/app-error';
import { actorAudit, type AuditActor, type AuditOutcome, type AuditRecorder } from '../audit';
import type { RequestMeta } from '../../http/request-meta';
import type { Throttle } from '../rate-limit';
import type { NotificationsService } from '../notifications';
import type { UsersRepository } from '../accounts';
import type { NewProviderRow, ProviderWithLink, ProvidersRepository } from './providers.repository';

// What the parts of the providers service (providers.service.ts) share.

/** How many providers one user may add to their network per minute (a script, not a person, adds more). */
export const NETWORK_ADDS_PER_MINUTE = 60;
export const NETWORK_ADDS_LIMITED_MESSAGE =
  'You are adding providers too quickly. Please wait a minute and try again.';
export const PROVIDER_NOT_FOUND = 'Provider not found.';
export const PROFILE_NOT_FOUND = 'Not found';
export const PROFESSIONAL_ONLY = 'A professional edits their own profile from their workspace.';

/**
 * The platform's own automated analysis, one directory entry (created on first start): it sells
 * the automated services, which the built-in analysis (modules/analysis) delivers.
 */
export const AUTOMATED_PROVIDER = {
  name: 'Automated Analysis (Medical Imaging platform)',
  specialty: 'Automated analysis',
  description:
    'The platform’s own software analysis: a technical report computed from the study itself. It is automated, not read by a person, and not a diagnosis.',
} as const;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const orNull = (v: string | undefined | null) => (v ? v : null);

/**
 * Whether what is shared with the provider reaches a person on the platform: it is linked to a
 * professional account that is approved and has confirmed its email.
 */
function onPlatform(linked: ProviderWithLink['linkedUser']): boolean {
  return Boolean(
    linked && linked.role === 'professional' && linked.accountStatus === 'active' && linked.verified,
  );
}

/** The licence an admin verified, for a professional's own profile whose account is still active. */
function verification({ provider: p, linkedUser, licence }: ProviderWithLink): Provider['verified'] {
  if (p.kind !== 'professional' || !licence?.reviewedAt || linkedUser?.accountStatus !== 'active')
    return null;
  return { licenseState: licence.licenseState, verifiedAt: licence.reviewedAt.toISOString() };
}

/** The API shape of a provider (the sharing module answers with it too). */
export function toProvider(row: ProviderWithLink): Provider {
  const { provider: p, linkedUser, ratings, licence } = row;
  const professional = p.kind === 'professional' ? licence : null;
  return {
    _id: p.id,
    id: p.id,
    name: p.name,
    specialty: p.specialty,
    description: p.description,
    yearsOfExperience: p.yearsOfExperience,
    rating: ratings.mean,
    ratingCount: ratings.count,
    kind: p.listed === 'contact' ? 'contact' : p.kind,
    verified: verification(row),
    hospital: professional?.hospital ?? null,
    position: professional?.position ?? null,
    demo: p.demo,
    credentials: p.credentials,
    location: p.location ?? null,
    academicProfile: p.academicProfile ?? null,
    contactInformation: { email: p.email, mobile: p.mobile, website: p.website },
    workingHours: p.workingHours ?? null,
    onPlatform: onPlatform(linkedUser),
  };
}

export function toAdminProvider(row: ProviderWithLink): AdminProvider {
  const { provider: p, linkedUser } = row;
  return {
    ...toProvider(row),
    retiredAt: p.retiredAt?.toISOString() ?? null,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
    linkedUser: linkedUser ? { id: linkedUser.id, email: linkedUser.email, name: linkedUser.name } : null,
    // Set and rotated under modules/vendors; the secret itself never leaves that module.
    vendor: p.vendorWebhookUrl
      ? { webhookUrl: p.vendorWebhookUrl, secretCreatedAt: p.vendorSecretCreatedAt?.toISOString() ?? null }
      : null,
  };
}

/** What a professional's profile still needs before it can be listed. */
export function missingForPublishing(p: ProviderWithLink['provider']): string[] {
  const missing: string[] = [];
  if (!p.description) missing.push('a description');
  if (!p.yearsOfExperience) missing.push('years of experience');
  if (!p.location?.city || !p.location.country) missing.push('a city and country');
  return missing;
}

export function toProfessionalProfile(row: ProviderWithLink): ProfessionalProfile {
  const { provider: p, licence } = row;
  return {
    providerId: p.id,
    name: p.name,
    specialty: p.specialty,
    hospital: licence?.hospital ?? null,
    position: licence?.position ?? null,
    licenseState: licence?.licenseState ?? '',
    verifiedAt: (licence?.reviewedAt ?? p.createdAt).toISOString(),
    description: p.description ?? '',
    yearsOfExperience: p.yearsOfExperience ?? '',
    credentials: p.credentials,
    workingHours: p.workingHours ?? { weekdays: '', weekends: '' },
    location: p.location ?? { street: '', city: '', state: '', zipCode: '', country: '' },
    contact: { email: p.email, mobile: p.mobile ?? '', website: p.website ?? '' },
    publishedAt: p.publishedAt?.toISOString() ?? null,
    offersPausedAt: licence?.offersPausedAt?.toISOString() ?? null,
    missing: missingForPublishing(p),
    rating: row.ratings.mean,
    ratingCount: row.ratings.count,
  };
}

/** The columns of an organisation from the admin form. */
export function toColumns(input: ProviderInput): Omit<NewProviderRow, 'listed' | 'createdBy'> {
  const email = input.contactInformation.email.trim();
  return {
    name: input.name,
    specialty: input.specialty,
    description: orNull(input.description),
    yearsOfExperience: String(Number(input.yearsOfExperience)),
    credentials: input.credentials,
    location: input.location,
    academicProfile: input.academicProfile,
    email,
    emailNormalized: normalizeEmail(email),
    mobile: orNull(input.contactInformation.mobile),
    website: orNull(input.contactInformation.website),
    workingHours: input.workingHours,
  };
}

export interface ProvidersDeps {
  repo: ProvidersRepository;
  users: Pick<UsersRepository, 'findByEmail'>;
  audit: AuditRecorder;
  throttle: Pick<Throttle, 'hit' | 'count'>;
  notifications: Pick<NotificationsService, 'notify'>;
  /** The recent sign-in rule of every admin change (modules/admin/recent-sign-in.ts). */
  requireRecentSignIn: RecentSignInRule;
  /**
   * Someone who delivered a provider's readings no longer can (paused, unlinked): orders paid
   * and waiting for them are refunded at once (modules/analysis, refundUndeliverable).
   */
  onFulfillerLost?: () => Promise<unknown>;
  now: () => Date;
}

/** Audit records, and providers found or refused as the rules of who may see what say. */
export function createProviderTools(deps: ProvidersDeps) {
  const record = actorAudit(deps.audit);
  const audit = (
    actor: AuditActor,
    action: string,
    providerId: string,
    meta: RequestMeta | undefined,
    details?: Record<string, unknown>,
    outcome: AuditOutcome = 'success',
  ) => record(actor, action, { type: 'provider', id: providerId }, meta, details, outcome);

  async function visible(userId: string, providerId: string): Promise<ProviderWithLink | undefined> {
    return UUID.test(providerId) ? deps.repo.findVisible(userId, providerId) : undefined;
  }

  async function requireDirectoryEntry(id: string): Promise<ProviderWithLink> {
    const found = UUID.test(id) ? await deps.repo.findDirectoryById(id) : undefined;
    if (!found) throw new AppError('NOT_FOUND', PROVIDER_NOT_FOUND);
    return found;
  }

  /** A verified professional's profile, made from their registration on first use; else the one 404. */
  async function requireProfile(userId: string): Promise<ProviderWithLink> {
    const existing = await deps.repo.findProfessionalProfile(userId);
    const verified = await deps.repo.findVerifiedProfessional(userId);
    if (!verified) throw new AppError('NOT_FOUND', PROFILE_NOT_FOUND);
    if (existing) return existing;
    const { user, licence } = verified;
    await deps.repo.insertProfessionalProfile({
      name: user.name ?? user.email,
      specialty: licence.specialty,
      email: '',
      emailNormalized: user.emailNormalized,
      credentials: [],
      linkedUserId: user.id,
      createdAt: deps.now(),
      updatedAt: deps.now(),
    });
    return (await deps.repo.findProfessionalProfile(userId))!;
  }

  /** Admins curate organisations and the automated entry; a professional's profile is theirs to edit. */
  async function requireOrganisation(id: string): Promise<ProviderWithLink> {
    const found = await requireDirectoryEntry(id);
    if (found.provider.kind === 'professional') throw new AppError('CONFLICT', PROFESSIONAL_ONLY);
    return found;
  }

  async function requireFreeEmail(email: string, exceptId?: string): Promise<void> {
    const taken = await deps.repo.findDirectoryByEmail(normalizeEmail(email), exceptId);
    if (taken)
      throw new AppError('CONFLICT', `Another directory provider (${taken.name}) already has this email.`);
  }

  /** Adds a provider the user may see to their network; audits a new entry. */
  async function addToNetwork(
    user: { id: string; role: string | null },
    found: ProviderWithLink,
    meta?: RequestMeta,
  ): Promise<boolean> {
    const added = await deps.repo.addToNetwork(user.id, found.provider.id, deps.now());
    if (added)
      await audit(user, 'provider.network_add', found.provider.id, meta, { listed: found.provider.listed });
    return added;
  }

  return {
    audit,
    visible,
    requireDirectoryEntry,
    requireProfile,
    requireOrganisation,
    requireFreeEmail,
    addToNetwork,
  };
}
export type ProviderTools = ReturnType<typeof createProviderTools>;
