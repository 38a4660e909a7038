import type { CreatedLink, LinkSummary, UpdateLinkRequest } from '@mi/contracts/links';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { AuthenticatedSession } from '../auth';
import type { LinkRow } from './links.repository';
import { auditLink, checkExpiry, type LinksDeps, present, summaries } from './links-context';

async function ownedLink(deps: LinksDeps, auth: AuthenticatedSession, linkId: string): Promise<LinkRow> {
  const link = /^[0-9a-f-]{36}$/i.test(linkId) ? await deps.repo.findOwned(auth.user.id, linkId) : undefined;
  if (!link) throw new AppError('NOT_FOUND', 'Link not found.');
  return link;
}

/** The owner's links once made: shown again, listed, paused, extended, revoked. */
export function createLinkManagement(deps: LinksDeps) {
  const { repo } = deps;
  return {
    /** The link again, for its owner (showing its QR code later). */
    async share(auth: AuthenticatedSession, linkId: string): Promise<CreatedLink> {
      const link = await ownedLink(deps, auth, linkId);
      return present(deps, link);
    },

    async list(auth: AuthenticatedSession, studyId?: string): Promise<LinkSummary[]> {
      return summaries(deps, await repo.listForOwner(auth.user.id, studyId));
    },

    async update(
      auth: AuthenticatedSession,
      linkId: string,
      change: UpdateLinkRequest,
      meta: RequestMeta,
    ): Promise<LinkSummary> {
      const link = await ownedLink(deps, auth, linkId);
      if (link.revokedAt) throw new AppError('CONFLICT', 'This link was revoked; make a new one.');
      const set: Partial<Pick<LinkRow, 'pausedAt' | 'expiresAt'>> = {};
      if (change.expiresAt !== undefined) {
        const expiresAt = new Date(change.expiresAt);
        checkExpiry(deps, link.mode, expiresAt, link.sealedPasscode !== null);
        set.expiresAt = expiresAt;
      }
      if (change.paused !== undefined) set.pausedAt = change.paused ? (link.pausedAt ?? deps.now()) : null;
      const updated = await repo.update(link.id, set);
      if (!updated) throw new AppError('CONFLICT', 'This link was revoked; make a new one.');
      const studyIds = (await repo.studiesOf([link.id])).map((s) => s.id);
      const action =
        change.paused === true ? 'link.pause' : change.paused === false ? 'link.resume' : 'link.extend';
      await auditLink(
        deps,
        action,
        'success',
        link,
        studyIds,
        meta,
        { id: auth.user.id, role: auth.user.role },
        {
          ...(set.expiresAt ? { expiresAt: set.expiresAt.toISOString() } : {}),
        },
      );
      const [summary] = await summaries(deps, [updated]);
      return summary!;
    },

    async revoke(auth: AuthenticatedSession, linkId: string, meta: RequestMeta): Promise<void> {
      const link = await ownedLink(deps, auth, linkId);
      if (link.revokedAt) return;
      await repo.update(link.id, { revokedAt: deps.now() });
      const studyIds = (await repo.studiesOf([link.id])).map((s) => s.id);
      await auditLink(deps, 'link.revoke', 'success', link, studyIds, meta, {
        id: auth.user.id,
        role: auth.user.role,
      });
    },
  };
}
