import { adminChanges, type RecentAdmin } from '../admin';
import { type AdminProvider, type ProviderInput } from '@mi/contracts/sharing';
import { normalizeEmail } from '@mi/contracts/rules';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';

import { type ProvidersDeps, type ProviderTools, toAdminProvider, toColumns } from './providers-context';

/** Admin → Providers: curating the directory's organisations and linking them to professional accounts. */
export function createProvidersAdmin(deps: ProvidersDeps, tools: ProviderTools) {
  return {
    admin: {
      async list(): Promise<AdminProvider[]> {
        return (await deps.repo.listDirectoryForAdmin()).map(toAdminProvider);
      },

      // Every change below is an admin change: a recent sign-in first (modules/admin, adminChanges).
      ...adminChanges(deps.requireRecentSignIn, 'provider.admin_change', {
        async create(admin: RecentAdmin, input: ProviderInput, meta: RequestMeta): Promise<AdminProvider> {
          await tools.requireFreeEmail(input.contactInformation.email);
          const at = deps.now();
          const created = await deps.repo.insertDirectoryEntry({
            ...toColumns(input),
            kind: 'organisation',
            createdAt: at,
            updatedAt: at,
          });
          // Another admin saved the same email a moment ago.
          if (!created) throw new AppError('CONFLICT', 'Another directory provider already has this email.');
          await tools.audit(admin, 'provider.create', created.id, meta);
          return toAdminProvider(await tools.requireDirectoryEntry(created.id));
        },

        async update(
          admin: RecentAdmin,
          id: string,
          input: ProviderInput,
          meta: RequestMeta,
        ): Promise<AdminProvider> {
          const before = await tools.requireOrganisation(id);
          await tools.requireFreeEmail(input.contactInformation.email, id);
          const columns = toColumns(input);
          await deps.repo.updateDirectoryEntry(id, { ...columns, updatedAt: deps.now() });
          const changed = (Object.keys(columns) as Array<keyof typeof columns>).filter(
            (k) =>
              k !== 'emailNormalized' && JSON.stringify(before.provider[k]) !== JSON.stringify(columns[k]),
          );
          await tools.audit(admin, 'provider.update', id, meta, { fields: changed });
          return toAdminProvider(await tools.requireDirectoryEntry(id));
        },

        /** Hides an entry from the directory and from every network until restored; existing shares stay. */
        async retire(admin: RecentAdmin, id: string, meta: RequestMeta): Promise<AdminProvider> {
          const found = await tools.requireDirectoryEntry(id);
          if (!found.provider.retiredAt) {
            await deps.repo.updateDirectoryEntry(id, { retiredAt: deps.now(), updatedAt: deps.now() });
            await tools.audit(admin, 'provider.retire', id, meta);
          }
          return toAdminProvider(await tools.requireDirectoryEntry(id));
        },

        async restore(admin: RecentAdmin, id: string, meta: RequestMeta): Promise<AdminProvider> {
          const found = await tools.requireDirectoryEntry(id);
          if (found.provider.retiredAt) {
            await deps.repo.updateDirectoryEntry(id, { retiredAt: null, updatedAt: deps.now() });
            await tools.audit(admin, 'provider.restore', id, meta);
          }
          return toAdminProvider(await tools.requireDirectoryEntry(id));
        },

        /**
         * Links an entry to a professional account, so what is shared with the provider reaches that
         * person. Only an approved professional who has confirmed the email qualifies, and one account
         * is one directory entry.
         */
        async link(admin: RecentAdmin, id: string, email: string, meta: RequestMeta): Promise<AdminProvider> {
          const found = await tools.requireOrganisation(id);
          const account = await deps.users.findByEmail(normalizeEmail(email));
          const refuse = (message: string, reason: string) =>
            tools.audit(admin, 'provider.link', id, meta, { reason }, 'failure').then(() => {
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
          const other = await deps.repo.findLinkedTo(account.id, id);
          if (other) throw new AppError('CONFLICT', `This account is already linked to ${other.name}.`);
          if (found.provider.linkedUserId !== account.id) {
            await deps.repo.updateDirectoryEntry(id, { linkedUserId: account.id, updatedAt: deps.now() });
            await tools.audit(admin, 'provider.link', id, meta, { userId: account.id });
            await deps.notifications.notify(account.id, {
              type: 'system',
              title: 'Provider profile linked',
              description: `Your account is now the directory provider "${found.provider.name}": studies shared with it reach you.`,
              path: '/studies?tab=shared_studies',
            });
          }
          return toAdminProvider(await tools.requireDirectoryEntry(id));
        },

        async unlink(admin: RecentAdmin, id: string, meta: RequestMeta): Promise<AdminProvider> {
          const found = await tools.requireOrganisation(id);
          if (found.provider.linkedUserId) {
            await deps.repo.updateDirectoryEntry(id, { linkedUserId: null, updatedAt: deps.now() });
            await tools.audit(admin, 'provider.unlink', id, meta, { userId: found.provider.linkedUserId });
            await deps.onFulfillerLost?.();
          }
          return toAdminProvider(await tools.requireDirectoryEntry(id));
        },
      }),
    },
  };
}
