import {
  VENDOR_SIGNATURE_TOLERANCE_SECONDS,
  vendorReportBodySchema,
  type VendorReportBody,
} from '@mi/contracts/vendors';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { ReportContent } from '../fulfilment';
import { sha256Hex, verifyRequest } from './vendor-crypto';

import {
  type Actor,
  awaitsVendor,
  dicomSafe,
  ORDER_NOT_FOUND,
  UUID,
  type VendorsDeps,
  type VendorTools,
} from './vendors-context';

/** The vendor's report, posted back signed, delivered into the study. */
export function createVendorReports(deps: VendorsDeps, tools: VendorTools) {
  return {
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
      const view = UUID.test(orderId) ? await deps.repo.findOrder(orderId) : undefined;
      const provider = view?.provider;
      const refuse = async (reason: string, actor: Actor | null = null) => {
        await tools.audit(actor, 'vendor.report', target, meta, { reason }, 'denied');
      };
      if (!view || !provider?.webhookUrl || !provider.secretSealed) {
        await refuse(view ? 'not_a_vendor' : 'unknown_order');
        throw new AppError('NOT_FOUND', ORDER_NOT_FOUND);
      }
      const verdict = verifyRequest(
        tools.seal.unseal(provider.secretSealed),
        signed.timestamp,
        signed.signature,
        raw,
        tools.nowSeconds(),
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
      const fresh = await deps.repo.rememberSignature(
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
      if (!awaitsVendor(view) || !(await deps.repo.wasSent(orderId, provider.id))) {
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
      await deps.repo.revokeForOrder(orderId, deps.now());
      await deps.repo.markReported(orderId, deps.now());
      await tools.audit(vendor, 'vendor.report', target, meta, {
        sections: report.sections.length,
        bytes: raw.length,
        mode: completes ? 'complete' : 'automated_part',
      });
      return {
        received: true,
        orderId,
        orderStatus: (await deps.repo.findOrder(orderId))?.order.status ?? 'completed',
      };
    },
  };
}
