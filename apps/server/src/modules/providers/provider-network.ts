import { experienceBucket, type Provider, type ProviderListQuery } from '@mi/contracts/sharing';
import { normalizeEmail } from '@mi/contracts/rules';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { UserRow } from '../accounts';
import type { NewProviderRow } from './providers.repository';

import {
  AUTOMATED_PROVIDER,
  NETWORK_ADDS_LIMITED_MESSAGE,
  NETWORK_ADDS_PER_MINUTE,
  PROVIDER_NOT_FOUND,
  type ProvidersDeps,
  type ProviderTools,
  toProvider,
  UUID,
} from './providers-context';

/** The directory as users see it, and each user's trusted network (sharing finds its recipients here). */
export function createProviderNetwork(deps: ProvidersDeps, tools: ProviderTools) {
  return {
    /**
     * First start: the platform's own automated analysis, the one entry a new directory holds.
     * Idempotent and safe for several processes starting at once. Returns its id.
     */
    async ensureAutomatedProvider(): Promise<string> {
      const found = await deps.repo.findByKind('automated');
      if (found) return found.id;
      await deps.repo.insertDirectory([
        {
          ...AUTOMATED_PROVIDER,
          kind: 'automated',
          email: '',
          emailNormalized: '',
          credentials: [],
        },
      ]);
      return (await deps.repo.findByKind('automated'))!.id;
    },

    /** Inserts directory entries (the demo directory, src/modules/demo/demo.service.ts); existing emails are kept. */
    insertDirectory: (rows: NewProviderRow[]) => deps.repo.insertDirectory(rows),

    /** Labels an entry 'Demo' wherever it shows (the demo data, src/modules/demo/demo.service.ts). */
    async markDemo(providerId: string): Promise<void> {
      await deps.repo.updateDirectoryEntry(providerId, { demo: true, updatedAt: deps.now() });
    },

    /** The live directory, narrowed by name or email, specialty, country and experience bucket. */
    async listDirectory(query: ProviderListQuery): Promise<Provider[]> {
      const rows = await deps.repo.listDirectory({
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
      return (await deps.repo.listNetwork(userId)).map(toProvider);
    },

    /** POST /api/users/providers: adding twice changes nothing; limited per user per minute. */
    async add(user: UserRow, providerId: string, meta: RequestMeta): Promise<Provider> {
      const key = `providers:add:${user.id}`;
      if ((await deps.throttle.count(key, 60_000)) >= NETWORK_ADDS_PER_MINUTE) {
        await tools.audit(
          user,
          'provider.network_add',
          providerId,
          meta,
          { reason: 'rate_limited' },
          'denied',
        );
        throw new AppError('RATE_LIMITED', NETWORK_ADDS_LIMITED_MESSAGE);
      }
      await deps.throttle.hit(key);
      const found = await tools.visible(user.id, providerId);
      if (!found) {
        await tools.audit(user, 'provider.network_add', providerId, meta, undefined, 'denied');
        throw new AppError('NOT_FOUND', PROVIDER_NOT_FOUND);
      }
      await tools.addToNetwork(user, found, meta);
      return toProvider(found);
    },

    /**
     * DELETE /api/users/providers: takes the provider off the user's list. What was already shared
     * with it stays shared (revoking is per study, in the share dialog).
     */
    async remove(user: UserRow, providerId: string, meta: RequestMeta): Promise<void> {
      const removed = UUID.test(providerId) ? await deps.repo.removeFromNetwork(user.id, providerId) : false;
      if (removed) {
        await tools.audit(user, 'provider.network_remove', providerId, meta);
        return;
      }
      // Already gone from the list: fine for a provider the user can see, the one 404 otherwise.
      if (!(await tools.visible(user.id, providerId))) {
        await tools.audit(user, 'provider.network_remove', providerId, meta, undefined, 'denied');
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
      const found = await tools.visible(userId, providerId);
      return found && { ...toProvider(found), linkedUserId: found.provider.linkedUserId };
    },

    /**
     * The provider a share to `email` goes to, in the user's network: the live directory entry with
     * that email when there is one, else the user's own contact for it (made on first use).
     */
    async ensureContact(userId: string, email: string, meta?: RequestMeta): Promise<Provider> {
      const emailNormalized = normalizeEmail(email);
      const found =
        (await deps.repo.findLiveDirectoryByEmail(emailNormalized)) ??
        (await deps.repo.findOrCreateContact(userId, email.trim(), emailNormalized));
      await tools.addToNetwork({ id: userId, role: null }, found, meta);
      return toProvider(found);
    },

    /** Adds a provider the user may see to their network (idempotent); the one 404 for any other id. */
    async addToNetwork(userId: string, providerId: string, meta?: RequestMeta): Promise<Provider> {
      const found = await tools.visible(userId, providerId);
      if (!found) throw new AppError('NOT_FOUND', PROVIDER_NOT_FOUND);
      await tools.addToNetwork({ id: userId, role: null }, found, meta);
      return toProvider(found);
    },
  };
}
