import {
  RATING_EDIT_DAYS,
  type AdminRating,
  type OrderRating,
  type RatingBody,
} from '@mi/contracts/directory';
import { AppError } from '../../http/app-error';
import type { RecentSignInRule } from '../admin';
import { actorAudit, type AuditRecorder } from '../audit';
import type { AuthenticatedSession } from '../auth';
import type { RequestMeta } from '../../http/request-meta';
import { mayActOnOrder } from '../orders';
import type { RatingRow, RatingsRepository } from './ratings.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EDIT_WINDOW_MS = RATING_EDIT_DAYS * 86_400_000;
export const ORDER_NOT_FOUND = 'Order not found.';
export const RATING_LOCKED = `Ratings can be changed for ${RATING_EDIT_DAYS} days.`;
export const RATING_NOT_FOUND = 'Rating not found.';
/** How many ratings a provider's details show. */
const SHOWN_RATINGS = 50;

type Actor = { id: string; role: string | null };

function toOrderRating(r: RatingRow): OrderRating {
  return {
    orderId: r.orderId,
    stars: r.stars,
    comment: r.comment,
    editableUntil: new Date(r.createdAt.getTime() + EDIT_WINDOW_MS).toISOString(),
  };
}

function toAdminRating(r: Awaited<ReturnType<RatingsRepository['listAll']>>[number]): AdminRating {
  return {
    orderId: r.rating.orderId,
    providerId: r.rating.providerId,
    providerName: r.providerName,
    serviceName: r.serviceName,
    stars: r.rating.stars,
    comment: r.rating.comment,
    commentHidden: r.rating.commentHiddenAt !== null,
    authorEmail: r.authorEmail,
    createdAt: r.rating.createdAt.toISOString(),
    updatedAt: r.rating.updatedAt.toISOString(),
  };
}

export interface RatingsDeps {
  repo: RatingsRepository;
  audit: AuditRecorder;
  /** Whether the user may see this provider (modules/providers): the directory or their own contact. */
  canSeeProvider: (userId: string, providerId: string) => Promise<boolean>;
  requireRecentSignIn: RecentSignInRule;
  now: () => Date;
}

/**
 * Ratings are earned: a patient gives 1-5 stars (and a comment) to an order of theirs once it is
 * completed, one per order, changeable for RATING_EDIT_DAYS. A provider's rating is their mean.
 * An admin may hide a comment, never change the stars.
 */
export function createRatingsService(deps: RatingsDeps) {
  const { repo } = deps;
  const audit = actorAudit(deps.audit);

  return {
    /** PUT /api/orders/{id}/rating: only the buyer of a completed order; the one 404 otherwise. */
    async rate(actor: Actor, orderId: string, body: RatingBody, meta: RequestMeta): Promise<OrderRating> {
      const found = UUID.test(orderId) ? await repo.findOrder(orderId) : undefined;
      const order =
        found && mayActOnOrder(actor, 'buyer', found) && found.status === 'completed' ? found : undefined;
      if (!order) {
        await audit(actor, 'order.rate', { type: 'order', id: orderId }, meta, {}, 'denied');
        throw new AppError('NOT_FOUND', ORDER_NOT_FOUND);
      }
      const at = deps.now();
      const existing = await repo.find(order.id);
      if (existing && at.getTime() - existing.createdAt.getTime() > EDIT_WINDOW_MS) {
        await audit(
          actor,
          'order.rate',
          { type: 'order', id: order.id },
          meta,
          { reason: 'locked' },
          'denied',
        );
        throw new AppError('CONFLICT', RATING_LOCKED);
      }
      const comment = body.comment?.trim() ? body.comment.trim() : null;
      const saved = await repo.upsert({
        orderId: order.id,
        providerId: order.providerId,
        userId: actor.id,
        stars: body.stars,
        comment,
        at,
      });
      await audit(
        actor,
        existing ? 'order.rating_update' : 'order.rate',
        { type: 'order', id: order.id },
        meta,
        {
          providerId: order.providerId,
          stars: body.stars,
        },
      );
      return toOrderRating(saved);
    },

    /** GET /api/providers/{id}/ratings: the mean, the count and the latest ratings with their visible comments. */
    async forProvider(userId: string, providerId: string) {
      if (!UUID.test(providerId) || !(await deps.canSeeProvider(userId, providerId)))
        throw new AppError('NOT_FOUND', 'Provider not found.');
      const [summary, rows] = await Promise.all([
        repo.summary(providerId),
        repo.listForProvider(providerId, SHOWN_RATINGS),
      ]);
      return {
        rating: summary.mean,
        ratingCount: summary.count,
        data: rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
      };
    },

    admin: {
      async list(): Promise<AdminRating[]> {
        return (await repo.listAll()).map(toAdminRating);
      },

      /** Hides a comment from everyone but the admins (or shows it again); the stars still count. */
      async hideComment(
        admin: AuthenticatedSession,
        orderId: string,
        hidden: boolean,
        meta: RequestMeta,
      ): Promise<AdminRating> {
        await deps.requireRecentSignIn(admin, 'rating.comment_hide', meta);
        const at = deps.now();
        const changed = UUID.test(orderId)
          ? await repo.setCommentHidden(orderId, hidden ? admin.user.id : null, hidden ? at : null)
          : false;
        if (!changed) throw new AppError('NOT_FOUND', RATING_NOT_FOUND);
        await audit(
          admin.user,
          hidden ? 'rating.comment_hide' : 'rating.comment_show',
          { type: 'order', id: orderId },
          meta,
        );
        const [found] = await repo.listAll({ orderId });
        return toAdminRating(found!);
      },
    },
  };
}
export type RatingsService = ReturnType<typeof createRatingsService>;
