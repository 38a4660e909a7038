import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { VENDOR_HEADERS } from '@mi/contracts/vendors';
import { AppError } from '../../http/app-error';
import { type RecentSignInRule } from '../admin';
import { actorAudit, type AuditRecorder } from '../audit';
import type { DeliverReport } from '../fulfilment';
import { awaitsAutomatedPart } from '../orders';
import { createSecretSeal, signRequest } from './vendor-crypto';
import type { VendorOrderView, VendorsRepository } from './vendors.repository';
import { createWebhookSender, resolveHost, WebhookTargetError, type ResolveHost } from './webhook-target';

// What the parts of the vendors service (vendors.service.ts) share.

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const PROVIDER_NOT_FOUND = 'Provider not found.';
export const ORDER_NOT_FOUND = 'Order not found.';

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

export interface Actor {
  id: string;
  role: string | null;
}

export const errorText = (err: unknown) => {
  const e = err as Error;
  return `${e?.name ?? 'Error'}: ${String(e?.message ?? err)}`.slice(0, 300);
};

/** Characters a DICOM text value must not hold (control characters, the value delimiter) become spaces. */
export const dicomSafe = (text: string) =>
  Array.from(text, (ch) => {
    const c = ch.codePointAt(0)!;
    return c < 0x20 || c === 0x7f || ch === '\\' ? ' ' : ch;
  })
    .join('')
    .replace(/ {2,}/g, ' ')
    .trim();

/** The host of a webhook URL, for audit records (its path or query may carry the vendor's own keys). */
export const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
};

export function summary(row: { webhookUrl: string | null; secretCreatedAt: Date | null }) {
  return row.webhookUrl
    ? { webhookUrl: row.webhookUrl, secretCreatedAt: row.secretCreatedAt?.toISOString() ?? null }
    : null;
}

/** Whether the order awaits this automated part from a vendor (modules/orders, order-access.ts). */
export const awaitsVendor = (v: VendorOrderView) =>
  awaitsAutomatedPart({
    serviceType: v.service.type,
    status: v.order.status,
    automatedReportAt: v.automatedReportAt,
  });

/** The signing secrets' seal, the clock in seconds, audit records, webhook delivery, providers by id. */
export function createVendorTools(deps: VendorsDeps) {
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
    const found = UUID.test(providerId) ? await deps.repo.findProvider(providerId) : undefined;
    if (!found) throw new AppError('NOT_FOUND', PROVIDER_NOT_FOUND);
    return found;
  }

  return { seal, nowSeconds, audit, resolve, sendWebhook, requireProvider };
}
export type VendorTools = ReturnType<typeof createVendorTools>;

/**
 * POSTs the signed webhook, only to an allowed address (checked as it connects, webhook-target.ts);
 * throws VendorDispatchError unless the vendor answers 2xx. A redirect is a failure, never followed.
 */
export async function postWebhook(
  deps: VendorsDeps,
  tools: VendorTools,
  url: string,
  secret: string,
  body: string,
): Promise<number> {
  const timestamp = tools.nowSeconds();
  let status: number;
  try {
    status = await tools.sendWebhook(
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
