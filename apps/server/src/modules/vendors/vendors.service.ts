import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  VENDOR_HEADERS,
  VENDOR_SIGNATURE_TOLERANCE_SECONDS,
  vendorReportBodySchema,
  vendorWebhookBodySchema,
  type VendorConfigResponse,
  type VendorReportBody,
  type VendorWebhookBody,
  type VendorWebhookPayload,
} from '@mi/contracts/vendors';
import { AppError } from '../../http/app-error';
import type { Principal } from '../access';
import { adminChanges, type RecentAdmin, type RecentSignInRule } from '../admin';
import { actorAudit, type AuditRecorder } from '../audit';
import type { RequestMeta } from '../../http/request-meta';
import type { DeliverReport, ReportContent } from '../fulfilment';
import { awaitsAutomatedPart } from '../orders';
import {
  createSecretSeal,
  newCredentialToken,
  newSigningSecret,
  sha256Hex,
  signRequest,
  VENDOR_TOKEN_PREFIX,
  verifyRequest,
} from './vendor-crypto';
import type { VendorOrderView, VendorsRepository } from './vendors.repository';
import {
  createWebhookSender,
  resolveHost,
  WebhookTargetError,
  webhookTargetProblem,
  type ResolveHost,
} from './webhook-target';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const PROVIDER_NOT_FOUND = 'Provider not found.';
const ORDER_NOT_FOUND = 'Order not found.';

/** A webhook call that did not succeed; the analysis job retries it (modules/analysis). */
export class VendorDispatchError extends Error {
  override readonly name = 'VendorDispatchError';
}

export interface VendorsDeps {
  repo: VendorsRepository;
  /** Signing secrets are sealed with a key derived from it (vendor-crypto.ts). */
  sessionSecret: string;
  audit: AuditRecorder;
  /** report-delivery.ts: the vendor's report goes into the study like every reading. */
  deliver: DeliverReport;
  /** The recent sign-in rule of every admin change (modules/admin/recent-sign-in.ts). */
  requireRecentSignIn: RecentSignInRule;
  log: Logger;
  /** Our public address: the DICOMweb root and the callback URL sent to the vendor are on it. */
  publicUrl: string;
  /** Whether webhooks to this machine are accepted (outside production, or VENDOR_ALLOW_LOOPBACK). */
  allowLoopbackHttp: boolean;
  /** How webhook host names are resolved (DNS by default); see webhook-target.ts. */
  resolveHost?: ResolveHost;
  /** How long a webhook call may take (VENDOR_WEBHOOK_TIMEOUT_SECONDS). */
  webhookTimeoutMs: number;
  /** How long a DICOMweb credential lives at most (it also ends with the order). */
  credentialTtlMs: number;
  now: () => Date;
}

interface Actor {
  id: string;
  role: string | null;
}

const errorText = (err: unknown) => {
  const e = err as Error;
  return `${e?.name ?? 'Error'}: ${String(e?.message ?? err)}`.slice(0, 300);
};

/** Characters a DICOM text value must not hold (control characters, the value delimiter) become spaces. */
const dicomSafe = (text: string) =>
  Array.from(text, (ch) => {
    const c = ch.codePointAt(0)!;
    return c < 0x20 || c === 0x7f || ch === '\\' ? ' ' : ch;
  })
    .join('')
    .replace(/ {2,}/g, ' ')
    .trim();

/**
 * External AI vendors (docs/decisions.md, "External AI vendors"). An admin gives a directory provider
 * a webhook URL and a generated signing secret; an automated order bought from it is then sent there
 * (the analysis job calls `dispatch`) with an expiring, study-scoped DICOMweb credential, and the
 * vendor posts its report back (`receiveReport`), signed with the same secret.
 */
export function createVendorsService(deps: VendorsDeps) {
  const { repo } = deps;
  const seal = createSecretSeal(deps.sessionSecret);
  const nowSeconds = () => Math.floor(deps.now().getTime() / 1000);

  const audit = actorAudit(deps.audit);
  const resolve = deps.resolveHost ?? resolveHost;
  const sendWebhook = createWebhookSender({
    allowLoopback: deps.allowLoopbackHttp,
    resolve,
    timeoutMs: deps.webhookTimeoutMs,
  });

  async function requireProvider(providerId: string) {
    const found = UUID.test(providerId) ? await repo.findProvider(providerId) : undefined;
    if (!found) throw new AppError('NOT_FOUND', PROVIDER_NOT_FOUND);
    return found;
  }

  /** The host of a webhook URL, for audit records (its path or query may carry the vendor's own keys). */
  const hostOf = (url: string) => {
    try {
      return new URL(url).host;
    } catch {
      return null;
    }
  };

  function summary(row: { webhookUrl: string | null; secretCreatedAt: Date | null }) {
    return row.webhookUrl
      ? { webhookUrl: row.webhookUrl, secretCreatedAt: row.secretCreatedAt?.toISOString() ?? null }
      : null;
  }

  /** Whether the order awaits this automated part from a vendor (modules/orders, order-access.ts). */
  const awaitsVendor = (v: VendorOrderView) =>
    awaitsAutomatedPart({
      serviceType: v.service.type,
      status: v.order.status,
      automatedReportAt: v.automatedReportAt,
    });

  /**
   * POSTs the signed webhook, only to an allowed address (checked as it connects, webhook-target.ts);
   * throws VendorDispatchError unless the vendor answers 2xx. A redirect is a failure, never followed.
   */
  async function postWebhook(url: string, secret: string, body: string): Promise<number> {
    const timestamp = nowSeconds();
    let status: number;
    try {
      status = await sendWebhook(
        url,
        {
          'content-type': 'application/json',
          'user-agent': 'medical-imaging-platform/vendor-webhook',
          [VENDOR_HEADERS.timestamp]: String(timestamp),
          [VENDOR_HEADERS.signature]: signRequest(secret, timestamp, body),
          [VENDOR_HEADERS.event]: 'order.created',
          [VENDOR_HEADERS.delivery]: randomUUID(),
        },
        body,
      );
    } catch (err) {
      const name = (err as Error)?.name;
      throw new VendorDispatchError(
        err instanceof WebhookTargetError
          ? `the webhook was not sent: ${err.message}`
          : name === 'TimeoutError' || name === 'AbortError'
            ? `the vendor did not answer within ${deps.webhookTimeoutMs / 1000} s`
            : 'the vendor could not be reached',
      );
    }
    if (status >= 300 && status < 400)
      throw new VendorDispatchError(`the vendor answered with a redirect (${status}), which is not followed`);
    if (status < 200 || status >= 300) throw new VendorDispatchError(`the vendor answered ${status}`);
    return status;
  }

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
        const provider = await requireProvider(providerId);
        const { webhookUrl } = vendorWebhookBodySchema.parse(body);
        const problem = await webhookTargetProblem(webhookUrl, {
          allowLoopback: deps.allowLoopbackHttp,
          resolve,
        });
        if (problem) {
          await audit(
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
        await repo.updateProvider(
          providerId,
          secret ? { webhookUrl, secretSealed: seal.seal(secret), secretCreatedAt: at } : { webhookUrl },
          at,
        );
        await audit(admin, 'provider.vendor_set', { type: 'provider', id: providerId }, meta, {
          host: hostOf(webhookUrl),
          newSecret: Boolean(secret),
        });
        const after = await requireProvider(providerId);
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
        const provider = await requireProvider(providerId);
        const at = deps.now();
        const secret = newSigningSecret();
        await repo.updateProvider(
          providerId,
          { webhookUrl: provider.webhookUrl, secretSealed: seal.seal(secret), secretCreatedAt: at },
          at,
        );
        await audit(admin, 'provider.vendor_secret_rotate', { type: 'provider', id: providerId }, meta, {});
        return { providerId, vendor: summary(await requireProvider(providerId)), secret };
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
        const provider = await requireProvider(providerId);
        if (provider.webhookUrl || provider.secretSealed) {
          await repo.updateProvider(
            providerId,
            { webhookUrl: null, secretSealed: null, secretCreatedAt: null },
            deps.now(),
          );
          await audit(admin, 'provider.vendor_remove', { type: 'provider', id: providerId }, meta, {});
        }
        return { providerId, vendor: null };
      },
    }),

    /** The provider's webhook when it is an external AI vendor (URL and secret set), else null. */
    async vendorFor(providerId: string): Promise<{ webhookUrl: string } | null> {
      const provider = await repo.findProvider(providerId);
      return provider?.webhookUrl && provider.secretSealed ? { webhookUrl: provider.webhookUrl } : null;
    },

    /**
     * One attempt to send an order to its vendor: a fresh credential for the order's study (earlier
     * ones end), the signed webhook, a 2xx answer. Throws VendorDispatchError otherwise (the
     * credential is then ended at once). No patient name or id is sent.
     */
    async dispatch(orderId: string, log: Logger): Promise<void> {
      const view = await repo.findOrder(orderId);
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
      const credentialId = await repo.issueCredential(
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
          provider.webhookUrl,
          seal.unseal(provider.secretSealed),
          JSON.stringify(payload),
        );
        await audit(null, 'vendor.webhook', target, undefined, {
          providerId: provider.id,
          host: hostOf(provider.webhookUrl),
          status,
          ms: Date.now() - started,
          credentialId,
        });
      } catch (err) {
        await repo.revokeCredential(credentialId, deps.now());
        const error = errorText(err);
        log.warn({ orderId, providerId: provider.id, error }, 'vendor webhook failed');
        await audit(
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

    isToken: (token: string) => token.startsWith(VENDOR_TOKEN_PREFIX),

    /**
     * The principal of a vendor's DICOMweb bearer token: live (known, not revoked, not expired), or
     * null (refused and audited). What it may read is the access rule's decision (modules/access).
     */
    async principalForToken(token: string, meta: RequestMeta): Promise<Principal | null> {
      const found =
        token.startsWith(VENDOR_TOKEN_PREFIX) && token.length <= 200
          ? await repo.findCredential(sha256Hex(token))
          : undefined;
      const reason = !found
        ? 'unknown'
        : found.revokedAt
          ? 'ended'
          : found.expiresAt.getTime() <= deps.now().getTime()
            ? 'expired'
            : null;
      if (!found || reason) {
        await audit(
          found ? { id: found.providerId, role: 'vendor' } : null,
          'vendor.credential',
          { type: 'order', id: found?.orderId ?? 'unknown' },
          meta,
          { reason },
          'denied',
        );
        return null;
      }
      return {
        userId: found.providerId,
        role: 'vendor',
        via: 'vendor',
        studyId: found.studyId,
        vendor: { credentialId: found.id, orderId: found.orderId },
      };
    },

    /** The order-events hub's `ended`: the order's credentials end with it. */
    async endOrder(orderId: string): Promise<void> {
      const ended = await repo.revokeForOrder(orderId, deps.now());
      if (ended > 0)
        await audit(null, 'vendor.credential_end', { type: 'order', id: orderId }, undefined, {
          credentials: ended,
        });
    },

    /**
     * POST /api/vendors/orders/{orderId}/report. A request that does not prove it comes from the
     * order's vendor (unknown order, a provider that is no vendor, a signature that does not verify)
     * gets the one 404; a signed but stale one 401, a replay 409. The report then goes into the study
     * through report-delivery (an AI order completes; a package's automated part keeps it open), the
     * credentials end, and a second report is a 409 that changes nothing.
     */
    async receiveReport(
      orderId: string,
      signed: { timestamp?: string; signature?: string },
      raw: Buffer,
      meta: RequestMeta,
    ): Promise<{ received: true; orderId: string; orderStatus: string }> {
      const target = { type: 'order', id: orderId };
      const view = UUID.test(orderId) ? await repo.findOrder(orderId) : undefined;
      const provider = view?.provider;
      const refuse = async (reason: string, actor: Actor | null = null) => {
        await audit(actor, 'vendor.report', target, meta, { reason }, 'denied');
      };
      if (!view || !provider?.webhookUrl || !provider.secretSealed) {
        await refuse(view ? 'not_a_vendor' : 'unknown_order');
        throw new AppError('NOT_FOUND', ORDER_NOT_FOUND);
      }
      const verdict = verifyRequest(
        seal.unseal(provider.secretSealed),
        signed.timestamp,
        signed.signature,
        raw,
        nowSeconds(),
      );
      if (verdict === 'bad') {
        await refuse('bad_signature');
        throw new AppError('NOT_FOUND', ORDER_NOT_FOUND);
      }
      const vendor = { id: provider.id, role: 'vendor' };
      if (verdict === 'stale') {
        await refuse('stale_timestamp', vendor);
        throw new AppError(
          'UNAUTHORIZED',
          `The request's timestamp is more than ${VENDOR_SIGNATURE_TOLERANCE_SECONDS} seconds from our clock.`,
        );
      }
      const at = deps.now();
      const fresh = await repo.rememberSignature(
        sha256Hex(signed.signature!),
        provider.id,
        orderId,
        at,
        new Date(at.getTime() - 2 * VENDOR_SIGNATURE_TOLERANCE_SECONDS * 1000),
      );
      if (!fresh) {
        await refuse('replayed', vendor);
        throw new AppError('CONFLICT', 'This request was already received.');
      }
      let body: VendorReportBody;
      try {
        body = vendorReportBodySchema.parse(JSON.parse(raw.toString('utf8')));
      } catch (err) {
        await refuse('bad_body', vendor);
        const issue = (err as { issues?: Array<{ path: unknown[]; message: string }> }).issues?.[0];
        throw new AppError(
          'VALIDATION_ERROR',
          issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'The body is not valid JSON.',
        );
      }
      if (!awaitsVendor(view) || !(await repo.wasSent(orderId, provider.id))) {
        await refuse(`not_awaiting:${view.order.status}`, vendor);
        throw new AppError('CONFLICT', 'This order is not waiting for a report.');
      }
      const providerName = dicomSafe(provider.name).slice(0, 100) || 'External AI vendor';
      const title = dicomSafe(body.title ?? view.service.name);
      const report: ReportContent = {
        title: `Automated reading by ${providerName}: ${title}`.slice(0, 200),
        automated: true,
        notice: `This is an automated reading by ${providerName}, an external AI vendor, made from the images. It is not a diagnosis.`,
        sections: [
          { heading: 'Findings', text: body.findings },
          { heading: 'Impression', text: body.impression },
          ...(body.recommendation ? [{ heading: 'Recommendation', text: body.recommendation }] : []),
          ...(body.sections ?? []),
          { heading: 'Reported by', text: `${providerName} (external AI vendor; automated reading)` },
        ],
      };
      const completes = view.service.type === 'AI';
      await deps.deliver(orderId, report, {
        actor: { id: provider.id, role: 'vendor' },
        mode: completes ? 'complete' : 'automated_part',
      });
      await repo.revokeForOrder(orderId, deps.now());
      await repo.markReported(orderId, deps.now());
      await audit(vendor, 'vendor.report', target, meta, {
        sections: report.sections.length,
        bytes: raw.length,
        mode: completes ? 'complete' : 'automated_part',
      });
      return {
        received: true,
        orderId,
        orderStatus: (await repo.findOrder(orderId))?.order.status ?? 'completed',
      };
    },
  };
}
export type VendorsService = ReturnType<typeof createVendorsService>;
