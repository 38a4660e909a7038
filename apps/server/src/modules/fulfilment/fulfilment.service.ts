import type { Readable } from 'node:stream';
import type {
  AttachStudyBody,
  DeclineOrderBody,
  DeliverReportBody,
  ProfessionalOrder,
  ReportDraft,
} from '@mi/contracts/fulfilment';
import { AppError } from '../../http/app-error';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { AccessService } from '../access';
import { actorAudit, type AuditOutcome, type AuditRecorder } from '../audit';
import type { RequestMeta } from '../../http/request-meta';
import type { NotificationsService } from '../notifications';
import { mayActOnOrder } from '../orders';
import type { FulfilmentRepository, FulfilmentView } from './fulfilment.repository';
import type { ReportDelivery } from './report-delivery';

export const ORDER_NOT_FOUND = 'Order not found.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** DICOM modality codes behind each modality name the catalogue shows (as orders.service.ts reads them). */
const MODALITY_CODES: Record<string, string[]> = {
  'X-Ray': ['CR', 'DX', 'DR', 'XR', 'RG', 'MG', 'RF', 'XA'],
  CT: ['CT'],
  MRI: ['MR'],
  PET: ['PT'],
  Ultrasound: ['US'],
};

/** Why a study cannot be read for a service, or null when it can. */
export function missingData(
  service: { supportedModalities: string[] },
  study: { modalities: string[]; instanceCount: number } | null | undefined,
): string | null {
  if (!study) return 'The order has no study.';
  if (study.instanceCount === 0) return 'The study has no images.';
  const codes = service.supportedModalities.flatMap((m) => MODALITY_CODES[m] ?? [m]);
  if (!study.modalities.some((m) => codes.includes(m.toUpperCase())))
    return `This service needs a ${service.supportedModalities.join(', ')} study.`;
  return null;
}

interface Actor {
  id: string;
  role: string | null;
}

export interface FulfilmentDeps {
  repo: FulfilmentRepository;
  delivery: Pick<ReportDelivery, 'deliver'>;
  access: Pick<AccessService, 'requireOwner'>;
  /** OrdersService.refundOrder: refunds the order's payment in full and records it. */
  refundOrder: (
    orderId: string,
    reason: string,
    options: { actor: Actor; meta: RequestMeta },
  ) => Promise<unknown>;
  notifications: Pick<NotificationsService, 'notify'>;
  storage: Pick<ObjectStorage, 'get'>;
  audit: AuditRecorder;
  now: () => Date;
  /**
   * Told when an order waiting for data got a study it can read (the order-events hub's
   * `studyAttached`: the automated part of AI and Complete Analysis Package orders starts).
   */
  startAutomated?: (orderId: string, status: string) => Promise<void>;
}

function toProfessionalOrder(v: FulfilmentView): ProfessionalOrder {
  const f = v.fulfilment;
  return {
    id: v.order.id,
    orderStatus: v.order.status,
    service: { id: v.service.id, name: v.service.name, type: v.service.type },
    provider: { id: v.provider.id, name: v.provider.name },
    paidAt: v.order.paidAt?.toISOString() ?? null,
    acceptedAt: f?.acceptedAt?.toISOString() ?? null,
    completedAt: f?.completedAt?.toISOString() ?? null,
    studyId: v.order.status === 'in_progress' ? v.order.studyId : null,
    study: v.study
      ? {
          studyDate: v.study.studyDate,
          modalities: v.study.modalities,
          seriesCount: v.study.seriesCount,
          instanceCount: v.study.instanceCount,
          bodyPart: v.study.bodyPart,
        }
      : null,
    draft: {
      findings: f?.findings ?? '',
      impression: f?.impression ?? '',
      recommendation: f?.recommendation ?? '',
    },
  };
}

/** Audit records, and the professional's orders found as the rules of who may act on them say. */
function createFulfilmentTools(deps: FulfilmentDeps) {
  const { repo } = deps;

  const record = actorAudit(deps.audit);
  const audit = (
    actor: Actor,
    action: string,
    orderId: string,
    meta: RequestMeta,
    details: Record<string, unknown>,
    outcome: AuditOutcome = 'success',
  ) => record(actor, action, { type: 'order', id: orderId }, meta, details, outcome);

  /** An order sent to a provider linked to this professional, or the one 404. */
  async function requireAssigned(actor: Actor, orderId: string, meta: RequestMeta, action: string) {
    const view =
      actor.role === 'professional' && UUID.test(orderId) ? await repo.findView(orderId) : undefined;
    if (!view || !mayActOnOrder(actor, 'professional', view.order, view.provider)) {
      await audit(actor, action, orderId, meta, {}, 'denied');
      throw new AppError('NOT_FOUND', ORDER_NOT_FOUND);
    }
    return view;
  }

  /** The order this professional accepted and is working on. */
  async function requireWorking(actor: Actor, orderId: string, meta: RequestMeta, action: string) {
    const view = await requireAssigned(actor, orderId, meta, action);
    if (view.order.status !== 'in_progress' || view.fulfilment?.professionalId !== actor.id)
      throw new AppError('CONFLICT', 'Only an order you accepted and is in progress can be reported.');
    return view;
  }

  /** The caller's own order, or the one 404. */
  async function requireOwn(actor: Actor, orderId: string, meta: RequestMeta, action: string) {
    const view = UUID.test(orderId) ? await repo.findView(orderId) : undefined;
    if (!view || !mayActOnOrder(actor, 'buyer', view.order)) {
      await audit(actor, action, orderId, meta, {}, 'denied');
      throw new AppError('NOT_FOUND', ORDER_NOT_FOUND);
    }
    return view;
  }

  return { repo, record, audit, requireAssigned, requireWorking, requireOwn };
}
type FulfilmentTools = ReturnType<typeof createFulfilmentTools>;

/** The professional's orders: listed, read, accepted or declined. */
function createFulfilmentInbox(deps: FulfilmentDeps, tools: FulfilmentTools) {
  const { repo, audit, requireAssigned } = tools;
  return {
    /** GET /api/professional/orders: My Orders; the one 404 for anyone but a professional. */
    async listMine(actor: Actor, meta: RequestMeta): Promise<ProfessionalOrder[]> {
      if (actor.role !== 'professional') {
        await audit(actor, 'professional_order.list', actor.id, meta, {}, 'denied');
        throw new AppError('NOT_FOUND', 'Not found');
      }
      return (await repo.listForProfessional(actor.id)).map(toProfessionalOrder);
    },

    async getMine(actor: Actor, orderId: string, meta: RequestMeta): Promise<ProfessionalOrder> {
      return toProfessionalOrder(await requireAssigned(actor, orderId, meta, 'professional_order.read'));
    },

    async accept(actor: Actor, orderId: string, meta: RequestMeta): Promise<ProfessionalOrder> {
      const view = await requireAssigned(actor, orderId, meta, 'order.accept');
      if (!(await repo.accept(orderId, actor.id, deps.now())))
        throw new AppError('CONFLICT', 'Only an order waiting for approval can be accepted.');
      await audit(actor, 'order.accept', orderId, meta, { studyId: view.order.studyId });
      await deps.notifications.notify(view.order.userId, {
        type: 'analysis',
        title: 'Order accepted',
        description: `Your ${view.service.name} order was accepted and is in progress.`,
        path: '/services/purchased',
      });
      return toProfessionalOrder((await repo.findView(orderId))!);
    },

    /** Declines an order waiting for approval: refunded in full, and the patient told. */
    async decline(
      actor: Actor,
      orderId: string,
      body: DeclineOrderBody,
      meta: RequestMeta,
    ): Promise<ProfessionalOrder> {
      const view = await requireAssigned(actor, orderId, meta, 'order.decline');
      const reason = body.reason?.trim() || null;
      if (!(await repo.decline(orderId, actor.id, reason, deps.now())))
        throw new AppError('CONFLICT', 'Only an order waiting for approval can be declined.');
      await audit(actor, 'order.decline', orderId, meta, { hasReason: reason !== null });
      await deps.refundOrder(orderId, 'Declined by the provider', { actor, meta });
      await deps.notifications.notify(view.order.userId, {
        type: 'analysis',
        title: 'Order declined',
        description: `Your ${view.service.name} order was declined by the provider and refunded in full.`,
        path: '/services/purchased',
      });
      return toProfessionalOrder((await repo.findView(orderId))!);
    },
  };
}

/** Working on an accepted order: the draft, the delivered reading, its report, and the study it reads. */
function createFulfilmentWork(deps: FulfilmentDeps, tools: FulfilmentTools) {
  const { repo, audit, requireWorking, requireOwn } = tools;
  return {
    async saveDraft(
      actor: Actor,
      orderId: string,
      draft: ReportDraft,
      meta: RequestMeta,
    ): Promise<ProfessionalOrder> {
      await requireWorking(actor, orderId, meta, 'order.report_draft');
      await repo.saveDraft(orderId, draft, deps.now());
      await audit(actor, 'order.report_draft', orderId, meta, {});
      return toProfessionalOrder((await repo.findView(orderId))!);
    },

    /** Deliver: the report goes into the study as a PDF series and the order completes. */
    async deliver(
      actor: Actor,
      orderId: string,
      body: DeliverReportBody,
      meta: RequestMeta,
    ): Promise<ProfessionalOrder> {
      const view = await requireWorking(actor, orderId, meta, 'order.deliver');
      await repo.saveDraft(orderId, body, deps.now());
      await deps.delivery.deliver(
        orderId,
        {
          title: `${view.service.name} report`,
          automated: false,
          sections: [
            { heading: 'Findings', text: body.findings },
            { heading: 'Impression', text: body.impression },
            ...(body.recommendation ? [{ heading: 'Recommendation', text: body.recommendation }] : []),
            { heading: 'Reported by', text: view.provider.name },
          ],
        },
        { actor: { id: actor.id, role: 'professional' } },
      );
      return toProfessionalOrder((await repo.findView(orderId))!);
    },

    /** GET /api/orders/{id}/report: the delivered PDF, to the order's patient or its professional. */
    async openReport(
      actor: Actor,
      orderId: string,
      meta: RequestMeta,
      part: 'final' | 'automated' = 'final',
    ): Promise<{ body: Readable; fileName: string }> {
      const view = UUID.test(orderId) ? await repo.findView(orderId) : undefined;
      // An unpaid order has no report, so the professional's part of the rule answers the same here.
      const allowed = view && mayActOnOrder(actor, 'buyer_or_professional', view.order, view.provider);
      // 'automated': the automated part of a Complete Analysis Package, there before the order completes.
      const key =
        part === 'automated' ? view?.fulfilment?.automatedReportPdfKey : view?.fulfilment?.reportPdfKey;
      if (!allowed || !key) {
        await audit(actor, 'order.report_read', orderId, meta, { part }, 'denied');
        throw new AppError('NOT_FOUND', 'Report not found.');
      }
      await audit(actor, 'order.report_read', orderId, meta, { studyId: view.order.studyId, part });
      const name = part === 'automated' ? 'automated-report' : 'report';
      return { body: await deps.storage.get(key), fileName: `${name}-${orderId.slice(0, 8)}.pdf` };
    },

    /** POST /api/orders/{id}/study: another of the patient's studies for an order that needs data. */
    async attachStudy(actor: Actor, orderId: string, body: AttachStudyBody, meta: RequestMeta) {
      const view = await requireOwn(actor, orderId, meta, 'order.attach_study');
      if (view.order.status !== 'pending_data_upload')
        throw new AppError('CONFLICT', 'Only an order waiting for data can be given another study.');
      const study = await deps.access.requireOwner(
        { userId: actor.id, role: actor.role, via: 'session', studyId: null },
        body.studyId,
        meta,
        { auditAction: 'order.attach_study', auditTarget: { type: 'order', id: orderId } },
      );
      const missing = missingData(view.service, study);
      if (missing) throw new AppError('UNPROCESSABLE', missing);
      const status: 'in_progress' | 'pending_approval' =
        view.service.type === 'AI' ? 'in_progress' : 'pending_approval';
      if (!(await repo.attachStudy(orderId, actor.id, study.id, status, deps.now())))
        throw new AppError('CONFLICT', 'Only an order waiting for data can be given another study.');
      await audit(actor, 'order.attach_study', orderId, meta, {
        studyId: study.id,
        previousStudyId: view.order.studyId,
        status,
      });
      await deps.startAutomated?.(orderId, status);
      return { orderId, orderStatus: status, studyId: study.id };
    },

    /** What an order waiting for data needs (the 'Upload Required Data' dialog). */
    async dataNeed(actor: Actor, orderId: string, meta: RequestMeta) {
      const view = await requireOwn(actor, orderId, meta, 'order.data_need');
      return {
        orderId,
        supportedModalities: view.service.supportedModalities,
        requiredData: view.service.requiredData,
        reason:
          view.order.status === 'pending_data_upload'
            ? (missingData(view.service, view.study) ?? 'The study is missing what this service needs.')
            : '',
      };
    },
  };
}

/**
 * What happens to a paid order: the professional its provider is linked to accepts or declines it
 * (a decline refunds in full), reads the study while the order is in progress (the access rule in
 * access.repository.ts) and delivers the report (report-delivery.ts); a patient whose study lacks
 * what the service needs attaches another of theirs; the delivered report can be opened as a PDF.
 */
export function createFulfilmentService(deps: FulfilmentDeps) {
  const tools = createFulfilmentTools(deps);
  return {
    ...createFulfilmentInbox(deps, tools),
    ...createFulfilmentWork(deps, tools),
  };
}
export type FulfilmentService = ReturnType<typeof createFulfilmentService>;
