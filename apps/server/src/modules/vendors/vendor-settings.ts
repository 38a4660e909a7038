import {
  vendorWebhookBodySchema,
  type VendorConfigResponse,
  type VendorWebhookBody,
} from '@mi/contracts/vendors';
import { AppError } from '../../http/app-error';
import { adminChanges, type RecentAdmin } from '../admin';
import type { RequestMeta } from '../../http/request-meta';
import { newSigningSecret } from './vendor-crypto';
import { webhookTargetProblem } from './webhook-target';

import { hostOf, summary, type VendorsDeps, type VendorTools } from './vendors-context';

/** An admin's vendor settings of a directory provider: its webhook URL and signing secret. */
export function createVendorSettings(deps: VendorsDeps, tools: VendorTools) {
  return {
    // Vendor settings are admin changes: a recent sign-in first (modules/admin, adminChanges).
    admin: adminChanges(deps.requireRecentSignIn, 'provider.admin_change', {
      /**
       * PUT /api/admin/providers/{id}/vendor: sets the webhook URL. A provider without a secret gets
       * one, answered this once; changing the URL keeps the secret (rotate it on its own).
       */
      async setWebhook(
        admin: RecentAdmin,
        providerId: string,
        body: VendorWebhookBody,
        meta: RequestMeta,
      ): Promise<VendorConfigResponse['data']> {
        const provider = await tools.requireProvider(providerId);
        const { webhookUrl } = vendorWebhookBodySchema.parse(body);
        const problem = await webhookTargetProblem(webhookUrl, {
          allowLoopback: deps.allowLoopbackHttp,
          resolve: tools.resolve,
        });
        if (problem) {
          await tools.audit(
            admin,
            'provider.vendor_set',
            { type: 'provider', id: providerId },
            meta,
            { reason: 'bad_url' },
            'failure',
          );
          throw new AppError('UNPROCESSABLE', problem);
        }
        const at = deps.now();
        const secret = provider.secretSealed ? undefined : newSigningSecret();
        await deps.repo.updateProvider(
          providerId,
          secret
            ? { webhookUrl, secretSealed: tools.seal.seal(secret), secretCreatedAt: at }
            : { webhookUrl },
          at,
        );
        await tools.audit(admin, 'provider.vendor_set', { type: 'provider', id: providerId }, meta, {
          host: hostOf(webhookUrl),
          newSecret: Boolean(secret),
        });
        const after = await tools.requireProvider(providerId);
        return { providerId, vendor: summary(after), ...(secret ? { secret } : {}) };
      },

      /**
       * POST /api/admin/providers/{id}/vendor/secret: a new secret, answered once; the old one stops
       * working at once. Also before a URL is set (a vendor may want its secret first); orders go
       * to the vendor only once both are set.
       */
      async rotateSecret(
        admin: RecentAdmin,
        providerId: string,
        meta: RequestMeta,
      ): Promise<VendorConfigResponse['data']> {
        const provider = await tools.requireProvider(providerId);
        const at = deps.now();
        const secret = newSigningSecret();
        await deps.repo.updateProvider(
          providerId,
          { webhookUrl: provider.webhookUrl, secretSealed: tools.seal.seal(secret), secretCreatedAt: at },
          at,
        );
        await tools.audit(
          admin,
          'provider.vendor_secret_rotate',
          { type: 'provider', id: providerId },
          meta,
          {},
        );
        return { providerId, vendor: summary(await tools.requireProvider(providerId)), secret };
      },

      /**
       * DELETE /api/admin/providers/{id}/vendor: the provider is no vendor any more; new orders get
       * the built-in report. Orders already sent keep their credential until they end.
       */
      async remove(
        admin: RecentAdmin,
        providerId: string,
        meta: RequestMeta,
      ): Promise<VendorConfigResponse['data']> {
        const provider = await tools.requireProvider(providerId);
        if (provider.webhookUrl || provider.secretSealed) {
          await deps.repo.updateProvider(
            providerId,
            { webhookUrl: null, secretSealed: null, secretCreatedAt: null },
            deps.now(),
          );
          await tools.audit(admin, 'provider.vendor_remove', { type: 'provider', id: providerId }, meta, {});
        }
        return { providerId, vendor: null };
      },
    }),

    /** The provider's webhook when it is an external AI vendor (URL and secret set), else null. */
    async vendorFor(providerId: string): Promise<{ webhookUrl: string } | null> {
      const provider = await deps.repo.findProvider(providerId);
      return provider?.webhookUrl && provider.secretSealed ? { webhookUrl: provider.webhookUrl } : null;
    },
  };
}
