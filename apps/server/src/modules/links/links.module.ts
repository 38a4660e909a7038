import { createHmac } from 'node:crypto';
import type { Config } from '../../config';
import { requestMeta } from '../../http/auth-hook';
import { createSealer } from '../auth';
import { sendStudyZip, type StudiesService } from '../studies';
import { createLinksRepository } from './links.repository';
import { linksRoutes, shlRoutes } from './links.routes';
import { createLinksService, type LinksDeps } from './links.service';

type LinkCredential = Parameters<LinksDeps['viewerGrant']>[2];
type Grant = ReturnType<LinksDeps['viewerGrant']>;

export interface LinksModuleDeps extends Pick<LinksDeps, 'access' | 'users' | 'audit' | 'now'> {
  /** De-identified copies a link may carry (modules/deidentify). */
  deidentify: LinksDeps['deidentified'];
  db: Parameters<typeof createLinksRepository>[0];
  config: Pick<Config, 'sessionSecret' | 'publicUrl' | 'viewerPublicUrl'>;
  notifications: { notify: LinksDeps['notify'] };
  /** A link's FHIR bundle (modules/fhir). */
  fhir: { studyBundle: LinksDeps['bundle'] };
  /** Viewer credentials (modules/viewer): a link's recipient opens a study with one. */
  viewerGrants: { issue(userId: string, studyId: string, sessionId: null, link: LinkCredential): Grant };
  /** A link's study download, as its owner would download it. */
  studies: Pick<StudiesService, 'downloadAs'>;
}

/** Study links (SMART Health Links): the owner's links and the public protocol (docs/links.md). */
export function createLinksModule({
  db,
  config,
  notifications,
  fhir,
  viewerGrants,
  studies,
  ...deps
}: LinksModuleDeps) {
  const links = createLinksService({
    repo: createLinksRepository(db),
    access: deps.access,
    users: deps.users,
    audit: deps.audit,
    notify: (userId, event) => notifications.notify(userId, event),
    bundle: (p, opts, meta) => fhir.studyBundle(p, opts, meta),
    deidentified: deps.deidentify,
    viewerGrant: (ownerId, studyId, link) => viewerGrants.issue(ownerId, studyId, null, link),
    // The links' keys and passcodes are sealed with their own key derived from SESSION_SECRET.
    seal: createSealer(createHmac('sha256', config.sessionSecret).update('study-link-secrets').digest()),
    publicUrl: config.publicUrl,
    viewerPublicUrl: config.viewerPublicUrl,
    now: deps.now,
  });
  const downloadRoute: Parameters<typeof shlRoutes>[1]['downloadRoute'] = (principal, studyId, req, reply) =>
    sendStudyZip(req, reply, (range) => studies.downloadAs(principal, studyId, requestMeta(req), range));
  return { links, routes: () => [linksRoutes(links), shlRoutes(links, { downloadRoute })] };
}
