import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { AccessService } from '../access';
import { actorAudit, type AuditRecorder } from '../audit';
import type { ServicesService } from '../services';
import { SERVICE_NOT_FOUND, type Actor } from './purchase-view';

export interface OrderPrerequisitesDeps {
  catalogue: Pick<ServicesService, 'findOffer'>;
  access: Pick<AccessService, 'requireOwner'>;
  audit: AuditRecorder;
}

/**
 * What an order and a new purchase's payment both need first: an offer of that service by that
 * provider, and a study of the caller's own.
 */
export function createOrderPrerequisites(deps: OrderPrerequisitesDeps) {
  const audit = actorAudit(deps.audit);
  return {
    /** The caller's own study, or the one 404 (a study shared with them is not theirs to order for). */
    requireOwnStudy: (actor: Actor, studyId: string, meta: RequestMeta, auditAction: string) =>
      deps.access.requireOwner(
        { userId: actor.id, role: actor.role, via: 'session', studyId: null },
        studyId,
        meta,
        { auditAction },
      ),

    /** The provider's offer of the service, or the one 404 (audited as denied). */
    async requireOffer(
      actor: Actor,
      serviceId: string,
      providerId: string,
      meta: RequestMeta,
      action: string,
    ) {
      const offer = await deps.catalogue.findOffer(serviceId, providerId);
      if (!offer) {
        await audit(
          actor,
          action,
          { type: 'service', id: serviceId },
          meta,
          { providerId, reason: 'no_offer' },
          'denied',
        );
        throw new AppError('NOT_FOUND', SERVICE_NOT_FOUND);
      }
      return offer;
    },
  };
}
export type OrderPrerequisites = ReturnType<typeof createOrderPrerequisites>;
