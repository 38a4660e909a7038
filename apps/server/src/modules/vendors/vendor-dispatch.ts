import type { Logger } from 'pino';
import { type VendorWebhookPayload } from '@mi/contracts/vendors';
import { newCredentialToken, sha256Hex } from './vendor-crypto';

import {
  awaitsVendor,
  errorText,
  hostOf,
  postWebhook,
  VendorDispatchError,
  type VendorsDeps,
  type VendorTools,
} from './vendors-context';

/** Sending an automated order to its vendor, with the DICOMweb credential it reads the study with. */
export function createVendorDispatch(deps: VendorsDeps, tools: VendorTools) {
  return {
    /**
     * One attempt to send an order to its vendor: a fresh credential for the order's study (earlier
     * ones end), the signed webhook, a 2xx answer. Throws VendorDispatchError otherwise (the
     * credential is then ended at once). No patient name or id is sent.
     */
    async dispatch(orderId: string, log: Logger): Promise<void> {
      const view = await deps.repo.findOrder(orderId);
      if (!view) throw new VendorDispatchError('the order is gone');
      const { provider, study } = view;
      if (!provider.webhookUrl || !provider.secretSealed)
        throw new VendorDispatchError('the provider is no longer an external AI vendor');
      if (!study || view.order.studyId !== study.id)
        throw new VendorDispatchError('the study of the order is gone');
      if (!awaitsVendor(view)) throw new VendorDispatchError('the order no longer awaits its automated part');
      const at = deps.now();
      const token = newCredentialToken();
      const expiresAt = new Date(at.getTime() + deps.credentialTtlMs);
      const credentialId = await deps.repo.issueCredential(
        { tokenHash: sha256Hex(token), orderId, providerId: provider.id, studyId: study.id, expiresAt },
        at,
      );
      const payload: VendorWebhookPayload = {
        event: 'order.created',
        orderId,
        service: {
          id: view.service.id,
          name: view.service.name,
          type: view.service.type === 'AI' ? 'AI' : 'Combined',
        },
        study: {
          studyInstanceUid: study.studyInstanceUid,
          modalities: study.modalities.filter((m) => m !== 'DOC'),
          seriesCount: study.seriesCount,
          instanceCount: study.instanceCount,
        },
        dicomweb: { baseUrl: `${deps.publicUrl}/dicomweb`, token, expiresAt: expiresAt.toISOString() },
        callbackUrl: `${deps.publicUrl}/api/vendors/orders/${orderId}/report`,
      };
      const started = Date.now();
      const target = { type: 'order', id: orderId };
      try {
        const status = await postWebhook(
          deps,
          tools,
          provider.webhookUrl,
          tools.seal.unseal(provider.secretSealed),
          JSON.stringify(payload),
        );
        await tools.audit(null, 'vendor.webhook', target, undefined, {
          providerId: provider.id,
          host: hostOf(provider.webhookUrl),
          status,
          ms: Date.now() - started,
          credentialId,
        });
      } catch (err) {
        await deps.repo.revokeCredential(credentialId, deps.now());
        const error = errorText(err);
        log.warn({ orderId, providerId: provider.id, error }, 'vendor webhook failed');
        await tools.audit(
          null,
          'vendor.webhook',
          target,
          undefined,
          { providerId: provider.id, host: hostOf(provider.webhookUrl), error, ms: Date.now() - started },
          'failure',
        );
        throw err;
      }
    },
  };
}
