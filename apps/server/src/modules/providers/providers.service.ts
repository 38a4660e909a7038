import { adminChanges, type RecentAdmin, type RecentSignInRule } from '../admin';
import {
  experienceBucket,
  type AdminProvider,
  type Provider,
  type ProviderInput,
  type ProviderListQuery,
} from '@mi/contracts/sharing';
import type { ProfessionalProfile, ProfessionalProfileInput } from '@mi/contracts/directory';
import { normalizeEmail } from '@mi/contracts/rules';
import { AppError } from '../../http/app-error';
import { actorAudit, type AuditActor, type AuditOutcome, type AuditRecorder } from '../audit';
import type { RequestMeta } from '../../http/request-meta';
import type { Throttle } from '../rate-limit';
import type { NotificationsService } from '../notifications';
import type { UserRow, UsersRepository } from '../accounts';
import type { NewProviderRow, ProviderWithLink, ProvidersRepository } from './providers.repository';

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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const orNull = (v: string | undefined | null) => (v ? v : null);

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

function toAdminProvider(row: ProviderWithLink): AdminProvider {
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
function missingForPublishing(p: ProviderWithLink['provider']): string[] {
  const missing: string[] = [];
  if (!p.description) missing.push('a description');
  if (!p.yearsOfExperience) missing.push('years of experience');
  if (!p.location?.city || !p.location.country) missing.push('a city and country');
  return missing;
}

function toProfessionalProfile(row: ProviderWithLink): ProfessionalProfile {
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
function toColumns(input: ProviderInput): Omit<NewProviderRow, 'listed' | 'createdBy'> {
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

/**
 * The provider directory (/providers, Admin → Providers) and each user's trusted network. A user
 * sees the live directory and the contacts they made themselves (by sharing with a new email);
 * anything else, including a retired entry, is the one 404.
 */
export function createProvidersService(deps: ProvidersDeps) {
  const { repo } = deps;

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
    return UUID.test(providerId) ? repo.findVisible(userId, providerId) : undefined;
  }

  async function requireDirectoryEntry(id: string): Promise<ProviderWithLink> {
    const found = UUID.test(id) ? await repo.findDirectoryById(id) : undefined;
    if (!found) throw new AppError('NOT_FOUND', PROVIDER_NOT_FOUND);
    return found;
  }

  /** A verified professional's profile, made from their registration on first use; else the one 404. */
  async function requireProfile(userId: string): Promise<ProviderWithLink> {
    const existing = await repo.findProfessionalProfile(userId);
    const verified = await repo.findVerifiedProfessional(userId);
    if (!verified) throw new AppError('NOT_FOUND', PROFILE_NOT_FOUND);
    if (existing) return existing;
    const { user, licence } = verified;
    await repo.insertProfessionalProfile({
      name: user.name ?? user.email,
      specialty: licence.specialty,
      email: '',
      emailNormalized: user.emailNormalized,
      credentials: [],
      linkedUserId: user.id,
      createdAt: deps.now(),
      updatedAt: deps.now(),
    });
    return (await repo.findProfessionalProfile(userId))!;
  }

  /** Admins curate organisations and the automated entry; a professional's profile is theirs to edit. */
  async function requireOrganisation(id: string): Promise<ProviderWithLink> {
    const found = await requireDirectoryEntry(id);
    if (found.provider.kind === 'professional') throw new AppError('CONFLICT', PROFESSIONAL_ONLY);
    return found;
  }

  async function requireFreeEmail(email: string, exceptId?: string): Promise<void> {
    const taken = await repo.findDirectoryByEmail(normalizeEmail(email), exceptId);
    if (taken)
      throw new AppError('CONFLICT', `Another directory provider (${taken.name}) already has this email.`);
  }

  /** Adds a provider the user may see to their network; audits a new entry. */
  async function addToNetwork(
    user: { id: string; role: string | null },
    found: ProviderWithLink,
    meta?: RequestMeta,
  ): Promise<boolean> {
    const added = await repo.addToNetwork(user.id, found.provider.id, deps.now());
    if (added)
      await audit(user, 'provider.network_add', found.provider.id, meta, { listed: found.provider.listed });
    return added;
  }

  return {
    /**
     * First start: the platform's own automated analysis, the one entry a new directory holds.
     * Idempotent and safe for several processes starting at once. Returns its id.
     */
    async ensureAutomatedProvider(): Promise<string> {
      const found = await repo.findByKind('automated');
      if (found) return found.id;
      await repo.insertDirectory([
        {
          ...AUTOMATED_PROVIDER,
          kind: 'automated',
          email: '',
          emailNormalized: '',
          credentials: [],
        },
      ]);
      return (await repo.findByKind('automated'))!.id;
    },

    /** Inserts directory entries (the demo directory, src/modules/demo/demo.service.ts); existing emails are kept. */
    insertDirectory: (rows: NewProviderRow[]) => repo.insertDirectory(rows),

    /** Labels an entry 'Demo' wherever it shows (the demo data, src/modules/demo/demo.service.ts). */
    async markDemo(providerId: string): Promise<void> {
      await repo.updateDirectoryEntry(providerId, { demo: true, updatedAt: deps.now() });
    },

    /** The live directory, narrowed by name or email, specialty, country and experience bucket. */
    async listDirectory(query: ProviderListQuery): Promise<Provider[]> {
      const rows = await repo.listDirectory({
        q: query.q || undefined,
        specialty: query.specialty || undefined,
        country: query.country || undefined,
      });
      const providers = rows.map(toProvider);
      return query.experience
        ? providers.filter((p) => experienceBucket(p.yearsOfExperience) === query.experience)
        : providers;
    },

    /** The user's trusted network, newest first. */
    async listNetwork(userId: string): Promise<Provider[]> {
      return (await repo.listNetwork(userId)).map(toProvider);
    },

    /** POST /api/users/providers: adding twice changes nothing; limited per user per minute. */
    async add(user: UserRow, providerId: string, meta: RequestMeta): Promise<Provider> {
      const key = `providers:add:${user.id}`;
      if ((await deps.throttle.count(key, 60_000)) >= NETWORK_ADDS_PER_MINUTE) {
        await audit(user, 'provider.network_add', providerId, meta, { reason: 'rate_limited' }, 'denied');
        throw new AppError('RATE_LIMITED', NETWORK_ADDS_LIMITED_MESSAGE);
      }
      await deps.throttle.hit(key);
      const found = await visible(user.id, providerId);
      if (!found) {
        await audit(user, 'provider.network_add', providerId, meta, undefined, 'denied');
        throw new AppError('NOT_FOUND', PROVIDER_NOT_FOUND);
      }
      await addToNetwork(user, found, meta);
      return toProvider(found);
    },

    /**
     * DELETE /api/users/providers: takes the provider off the user's list. What was already shared
     * with it stays shared (revoking is per study, in the share dialog).
     */
    async remove(user: UserRow, providerId: string, meta: RequestMeta): Promise<void> {
      const removed = UUID.test(providerId) ? await repo.removeFromNetwork(user.id, providerId) : false;
      if (removed) {
        await audit(user, 'provider.network_remove', providerId, meta);
        return;
      }
      // Already gone from the list: fine for a provider the user can see, the one 404 otherwise.
      if (!(await visible(user.id, providerId))) {
        await audit(user, 'provider.network_remove', providerId, meta, undefined, 'denied');
        throw new AppError('NOT_FOUND', PROVIDER_NOT_FOUND);
      }
    },

    // ------------------------------------------------------------ for the sharing module

    /**
     * A provider the user may share with: a live directory entry or their own contact, with the
     * account an admin linked it to (a share to it reaches that account).
     */
    async findForUser(
      userId: string,
      providerId: string,
    ): Promise<(Provider & { linkedUserId: string | null }) | undefined> {
      const found = await visible(userId, providerId);
      return found && { ...toProvider(found), linkedUserId: found.provider.linkedUserId };
    },

    /**
     * The provider a share to `email` goes to, in the user's network: the live directory entry with
     * that email when there is one, else the user's own contact for it (made on first use).
     */
    async ensureContact(userId: string, email: string, meta?: RequestMeta): Promise<Provider> {
      const emailNormalized = normalizeEmail(email);
      const found =
        (await repo.findLiveDirectoryByEmail(emailNormalized)) ??
        (await repo.findOrCreateContact(userId, email.trim(), emailNormalized));
      await addToNetwork({ id: userId, role: null }, found, meta);
      return toProvider(found);
    },

    /** Adds a provider the user may see to their network (idempotent); the one 404 for any other id. */
    async addToNetwork(userId: string, providerId: string, meta?: RequestMeta): Promise<Provider> {
      const found = await visible(userId, providerId);
      if (!found) throw new AppError('NOT_FOUND', PROVIDER_NOT_FOUND);
      await addToNetwork({ id: userId, role: null }, found, meta);
      return toProvider(found);
    },

    // ------------------------------------------------------------ a professional's own profile

    professional: {
      /**
       * The signed-in professional's profile, made from their registration on first visit. Only an
       * account an admin verified has one; anyone else gets the one 404.
       */
      async get(userId: string): Promise<ProfessionalProfile> {
        return toProfessionalProfile(await requireProfile(userId));
      },

      /** The provider id of a verified professional's profile (their offers hang on it). */
      async providerId(userId: string): Promise<string> {
        return (await requireProfile(userId)).provider.id;
      },

      async update(
        user: { id: string; role: string | null },
        input: ProfessionalProfileInput,
        meta: RequestMeta,
      ): Promise<ProfessionalProfile> {
        const found = await requireProfile(user.id);
        await repo.updateDirectoryEntry(found.provider.id, {
          description: orNull(input.description),
          yearsOfExperience: String(Number(input.yearsOfExperience)),
          credentials: [...new Set(input.credentials.map((c) => c.trim()).filter(Boolean))],
          workingHours: input.workingHours,
          location: input.location,
          email: input.contact.email.trim(),
          mobile: orNull(input.contact.mobile),
          website: orNull(input.contact.website),
          updatedAt: deps.now(),
        });
        await audit(user, 'provider.profile_update', found.provider.id, meta);
        return toProfessionalProfile(await requireProfile(user.id));
      },

      /** Lists or unlists the profile; listing needs a complete profile. */
      async publish(
        user: { id: string; role: string | null },
        published: boolean,
        meta: RequestMeta,
      ): Promise<ProfessionalProfile> {
        const found = await requireProfile(user.id);
        const missing = missingForPublishing(found.provider);
        if (published && missing.length > 0) {
          await audit(user, 'provider.publish', found.provider.id, meta, { missing }, 'failure');
          throw new AppError('UNPROCESSABLE', `Before publishing, add ${missing.join(', ')}.`);
        }
        if (published !== (found.provider.publishedAt !== null)) {
          await repo.updateDirectoryEntry(found.provider.id, {
            publishedAt: published ? deps.now() : null,
            updatedAt: deps.now(),
          });
          await audit(user, published ? 'provider.publish' : 'provider.unpublish', found.provider.id, meta);
        }
        return toProfessionalProfile(await requireProfile(user.id));
      },

      /** Pauses every offer (none is sold; paid orders waiting for this professional are refunded) or resumes them. */
      async pauseOffers(
        user: { id: string; role: string | null },
        paused: boolean,
        meta: RequestMeta,
      ): Promise<ProfessionalProfile> {
        const found = await requireProfile(user.id);
        if (paused !== Boolean(found.licence?.offersPausedAt)) {
          await repo.setOffersPaused(user.id, paused ? deps.now() : null);
          await audit(
            user,
            paused ? 'provider.offers_pause' : 'provider.offers_resume',
            found.provider.id,
            meta,
          );
          if (paused) await deps.onFulfillerLost?.();
        }
        return toProfessionalProfile(await requireProfile(user.id));
      },
    },

    // ------------------------------------------------------------ admin

    admin: {
      async list(): Promise<AdminProvider[]> {
        return (await repo.listDirectoryForAdmin()).map(toAdminProvider);
      },

      // Every change below is an admin change: a recent sign-in first (modules/admin, adminChanges).
      ...adminChanges(deps.requireRecentSignIn, 'provider.admin_change', {
        async create(admin: RecentAdmin, input: ProviderInput, meta: RequestMeta): Promise<AdminProvider> {
          await requireFreeEmail(input.contactInformation.email);
          const at = deps.now();
          const created = await repo.insertDirectoryEntry({
            ...toColumns(input),
            kind: 'organisation',
            createdAt: at,
            updatedAt: at,
          });
          // Another admin saved the same email a moment ago.
          if (!created) throw new AppError('CONFLICT', 'Another directory provider already has this email.');
          await audit(admin, 'provider.create', created.id, meta);
          return toAdminProvider(await requireDirectoryEntry(created.id));
        },

        async update(
          admin: RecentAdmin,
          id: string,
          input: ProviderInput,
          meta: RequestMeta,
        ): Promise<AdminProvider> {
          const before = await requireOrganisation(id);
          await requireFreeEmail(input.contactInformation.email, id);
          const columns = toColumns(input);
          await repo.updateDirectoryEntry(id, { ...columns, updatedAt: deps.now() });
          const changed = (Object.keys(columns) as Array<keyof typeof columns>).filter(
            (k) =>
              k !== 'emailNormalized' && JSON.stringify(before.provider[k]) !== JSON.stringify(columns[k]),
          );
          await audit(admin, 'provider.update', id, meta, { fields: changed });
          return toAdminProvider(await requireDirectoryEntry(id));
        },

        /** Hides an entry from the directory and from every network until restored; existing shares stay. */
        async retire(admin: RecentAdmin, id: string, meta: RequestMeta): Promise<AdminProvider> {
          const found = await requireDirectoryEntry(id);
          if (!found.provider.retiredAt) {
            await repo.updateDirectoryEntry(id, { retiredAt: deps.now(), updatedAt: deps.now() });
            await audit(admin, 'provider.retire', id, meta);
          }
          return toAdminProvider(await requireDirectoryEntry(id));
        },

        async restore(admin: RecentAdmin, id: string, meta: RequestMeta): Promise<AdminProvider> {
          const found = await requireDirectoryEntry(id);
          if (found.provider.retiredAt) {
            await repo.updateDirectoryEntry(id, { retiredAt: null, updatedAt: deps.now() });
            await audit(admin, 'provider.restore', id, meta);
          }
          return toAdminProvider(await requireDirectoryEntry(id));
        },

        /**
         * Links an entry to a professional account, so what is shared with the provider reaches that
         * person. Only an approved professional who has confirmed the email qualifies, and one account
         * is one directory entry.
         */
        async link(admin: RecentAdmin, id: string, email: string, meta: RequestMeta): Promise<AdminProvider> {
          const found = await requireOrganisation(id);
          const account = await deps.users.findByEmail(normalizeEmail(email));
          const refuse = (message: string, reason: string) =>
            audit(admin, 'provider.link', id, meta, { reason }, 'failure').then(() => {
              throw new AppError('UNPROCESSABLE', message);
            });
          if (!account || account.role !== 'professional')
            return refuse('No medical professional account has this email.', 'not_professional');
          if (account.accountStatus !== 'active')
            return refuse(
              'This professional account has not been approved. Approve it under Professionals first.',
              'not_approved',
            );
          if (!account.emailVerifiedAt)
            return refuse('This professional has not confirmed their email address yet.', 'email_unverified');
          const other = await repo.findLinkedTo(account.id, id);
          if (other) throw new AppError('CONFLICT', `This account is already linked to ${other.name}.`);
          if (found.provider.linkedUserId !== account.id) {
            await repo.updateDirectoryEntry(id, { linkedUserId: account.id, updatedAt: deps.now() });
            await audit(admin, 'provider.link', id, meta, { userId: account.id });
            await deps.notifications.notify(account.id, {
              type: 'system',
              title: 'Provider profile linked',
              description: `Your account is now the directory provider "${found.provider.name}": studies shared with it reach you.`,
              path: '/studies?tab=shared_studies',
            });
          }
          return toAdminProvider(await requireDirectoryEntry(id));
        },

        async unlink(admin: RecentAdmin, id: string, meta: RequestMeta): Promise<AdminProvider> {
          const found = await requireOrganisation(id);
          if (found.provider.linkedUserId) {
            await repo.updateDirectoryEntry(id, { linkedUserId: null, updatedAt: deps.now() });
            await audit(admin, 'provider.unlink', id, meta, { userId: found.provider.linkedUserId });
            await deps.onFulfillerLost?.();
          }
          return toAdminProvider(await requireDirectoryEntry(id));
        },
      }),
    },
  };
}
export type ProvidersService = ReturnType<typeof createProvidersService>;
