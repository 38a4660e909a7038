import QRCode from 'qrcode';
import {
  CHECKIN_MAX_MINUTES,
  type CreatedLink,
  type PendingLink,
  type createLinkSchema,
  LINK_MAX_DAYS,
  LINK_RECIPIENT_MAX,
  type LinkStatus,
  type LinkSummary,
  PASSCODE_ATTEMPTS,
  PASSCODE_REQUIRED_AFTER_HOURS,
  type UpdateLinkRequest,
} from '@mi/contracts/links';
import { SHARING_OFF_MESSAGE } from '@mi/contracts/sharing';
import { z } from 'zod';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { AccessService, Principal } from '../access';
import type { UsersRepository } from '../accounts';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession } from '../auth';
import type { DeidentifyService } from '../deidentify';
import type { NotificationEvent } from '../notifications';
import type { LinkRow, LinksRepository, LinkStudy } from './links.repository';
import {
  encryptFile,
  sameText,
  LINK_TOKEN_PREFIX,
  newLinkToken,
  random256,
  sha256Hex,
  shlinkOf,
} from './links-crypto';

type CreateLink = z.output<typeof createLinkSchema>;

/** A link's policy as the owner chose it, the passcode already sealed (a job may carry it). */
const linkPolicySchema = z.object({
  mode: z.enum(['share', 'checkin']),
  label: z.string().nullable(),
  sealedPasscode: z.string().nullable(),
  allowDownload: z.boolean(),
  maxOpens: z.number().int().nullable(),
  expiresAt: z.string(),
});
type LinkPolicy = z.infer<typeof linkPolicySchema>;

/** The FHIR Bundle a link carries (modules/fhir builds it; see docs/links.md). */
export type BundleBuilder = (
  p: Principal,
  opts: { studyIds: string[]; endpoint: { header?: string[]; expiresAt?: Date }; interactiveUrl?: string },
  meta: RequestMeta,
) => Promise<unknown>;

export interface LinksDeps {
  repo: LinksRepository;
  access: AccessService;
  users: Pick<UsersRepository, 'findById'>;
  audit: AuditRecorder;
  notify: (userId: string, event: NotificationEvent) => Promise<void>;
  bundle: BundleBuilder;
  /** De-identified copies a link may carry instead of the studies (modules/deidentify). */
  deidentified: Pick<DeidentifyService, 'prepare'>;
  /** Issues the viewer-origin credential that opens one study for a link's recipient (modules/viewer). */
  viewerGrant: (
    ownerId: string,
    studyId: string,
    link: { credentialId: string; expiresAt: Date },
  ) => Promise<{ token: string }>;
  seal: { encrypt(plain: string): string; decrypt(sealed: string): string };
  publicUrl: string;
  viewerPublicUrl: string;
  now: () => Date;
}

/** The SHL manifest's files (IG: manifest response). */
export interface Manifest {
  files: Array<{ contentType: 'application/fhir+json'; embedded?: string; location?: string }>;
}

const FHIR_JSON = 'application/fhir+json';
/** A manifest's `location` URLs, and download tickets, live at most this long (IG: at most one hour). */
const LOCATION_TTL_MS = 60 * 60 * 1000;
/** Without an `embeddedLengthMax`, files up to this many characters are embedded in the manifest. */
const EMBED_BY_DEFAULT_MAX = 4 * 1024 * 1024;
/** The IG bounds the manifest URL. */
const MANIFEST_URL_MAX = 128;
const LINK_GONE = 'This link has expired, was revoked or does not exist.';
const gone = () => new AppError('NOT_FOUND', LINK_GONE);

/** 401 with the budget left, as the IG asks of a wrong passcode. */
export class WrongPasscode extends Error {
  constructor(readonly remainingAttempts: number) {
    super('Wrong passcode');
  }
}

/** What the owner's lists show: live, or why not. */
export function statusOf(link: LinkRow, at: Date): LinkStatus {
  if (link.revokedAt) return 'revoked';
  if (link.disabledAt) return 'disabled';
  if (link.expiresAt <= at) return 'expired';
  if (link.pausedAt) return 'paused';
  if (link.maxOpens !== null && link.opens >= link.maxOpens) return 'used_up';
  return 'active';
}

function toSummary(link: LinkRow, studies: LinkStudy[], at: Date): LinkSummary {
  return {
    id: link.id,
    mode: link.mode,
    label: link.label,
    status: statusOf(link, at),
    studies: studies.map((s) => ({ id: s.id, description: s.description, studyDate: s.studyDate })),
    createdAt: link.createdAt.toISOString(),
    expiresAt: link.expiresAt.toISOString(),
    hasPasscode: link.sealedPasscode !== null,
    allowDownload: link.allowDownload,
    maxOpens: link.maxOpens,
    opens: link.opens,
    passcodeAttemptsLeft: link.sealedPasscode ? link.passcodeAttemptsLeft : null,
    lastOpenedAt: link.lastOpenedAt?.toISOString() ?? null,
    lastRecipient: link.lastRecipient,
  };
}

/**
 * Study links (SMART Health Links): the owner makes, lists and ends them; anyone holding one opens
 * its studies through the IG's protocol (manifest, files) and the link's credential. Whether a
 * link opens a study is the access rule's decision (modules/access) on every request, so pausing,
 * revoking, expiry, deleting or transferring the study, or turning sharing off ends it at once in
 * every process. See docs/links.md.
 */
export function createLinksService(deps: LinksDeps) {
  const { repo } = deps;
  const manifestUrl = (manifestId: string) => `${deps.publicUrl}/api/shl/m/${manifestId}`;
  const viewerUrlOf = (shlink: string) => `${deps.publicUrl}/shl#${shlink}`;

  function shlinkFor(link: LinkRow): string {
    return shlinkOf({
      url: manifestUrl(link.manifestId),
      key: deps.seal.decrypt(link.sealedKey),
      exp: Math.floor(link.expiresAt.getTime() / 1000),
      flag: link.mode === 'checkin' ? 'U' : link.sealedPasscode ? 'P' : undefined,
      label: link.label ?? undefined,
      v: 1,
    });
  }

  async function audit(
    action: string,
    outcome: 'success' | 'denied',
    /** Null while a de-identified link waits for its copies. */
    link: Pick<LinkRow, 'id' | 'label'> | null,
    studyIds: string[],
    meta: RequestMeta,
    actor: { id: string; role: string | null } | null,
    details: Record<string, unknown> = {},
  ) {
    // One record per study, so each study's Access & activity lists it.
    for (const studyId of studyIds.length ? studyIds : [null])
      await deps.audit({
        actorId: actor?.id ?? null,
        actorRole: actor ? actor.role : 'link',
        action,
        targetType: studyId ? 'study' : 'link',
        targetId: studyId ?? link?.id ?? null,
        outcome,
        requestId: meta.requestId,
        ip: meta.ip,
        details: {
          ...(link ? { linkId: link.id } : {}),
          ...(link?.label ? { label: link.label } : {}),
          ...details,
        },
      });
  }

  /** The expiry rules of a link's policy (creating or extending). */
  function checkExpiry(mode: LinkRow['mode'], expiresAt: Date, hasPasscode: boolean) {
    const at = deps.now().getTime();
    const minutes = (expiresAt.getTime() - at) / 60_000;
    if (!(minutes >= 1)) throw new AppError('VALIDATION_ERROR', 'Choose an expiry in the future.');
    if (minutes > LINK_MAX_DAYS * 24 * 60)
      throw new AppError('VALIDATION_ERROR', `A link can last at most ${LINK_MAX_DAYS} days.`);
    if (mode === 'checkin' && minutes > CHECKIN_MAX_MINUTES + 0.5)
      throw new AppError(
        'VALIDATION_ERROR',
        `A check-in link can last at most ${CHECKIN_MAX_MINUTES} minutes.`,
      );
    if (mode === 'share' && !hasPasscode && minutes > PASSCODE_REQUIRED_AFTER_HOURS * 60 + 0.5)
      throw new AppError(
        'VALIDATION_ERROR',
        `A link that lasts more than ${PASSCODE_REQUIRED_AFTER_HOURS} hours needs a passcode.`,
      );
  }

  async function summaries(links: LinkRow[]): Promise<LinkSummary[]> {
    const studies = await repo.studiesOf(links.map((l) => l.id));
    const at = deps.now();
    return links.map((l) =>
      toSummary(
        l,
        studies.filter((s) => s.linkId === l.id),
        at,
      ),
    );
  }

  /** The link as its owner is shown it: the `shlink:/`, our page's URL and its QR code (level M). */
  async function present(link: LinkRow): Promise<CreatedLink> {
    const shlink = shlinkFor(link);
    const viewerUrl = viewerUrlOf(shlink);
    const qrSvg = await QRCode.toString(viewerUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    const [summary] = await summaries([link]);
    return { id: link.id, shlink, viewerUrl, qrSvg, link: summary! };
  }

  async function ownedLink(auth: AuthenticatedSession, linkId: string): Promise<LinkRow> {
    const link = /^[0-9a-f-]{36}$/i.test(linkId) ? await repo.findOwned(auth.user.id, linkId) : undefined;
    if (!link) throw new AppError('NOT_FOUND', 'Link not found.');
    return link;
  }

  /** The principal a link's credential acts as: the link's recipient, answered for by its owner. */
  function principalOf(link: LinkRow, credential: { id: string; recipient: string }): Principal {
    return {
      userId: link.ownerId,
      role: null,
      via: 'link',
      studyId: null,
      link: {
        linkId: link.id,
        credentialId: credential.id,
        recipient: credential.recipient,
        allowDownload: link.allowDownload,
      },
    };
  }

  /**
   * One open of a live link by `recipient`: counts it (within the maximum), issues the recipient's
   * credential, and encrypts the Bundle of the studies it opens. The owner hears of the first open.
   */
  async function open(
    link: LinkRow,
    recipient: string,
    meta: RequestMeta,
  ): Promise<{ jwe: string; credentialId: string }> {
    const opened = await repo.countOpen(link.id, recipient, deps.now());
    if (!opened) {
      await audit('link.open', 'denied', link, [], meta, null, { recipient, reason: 'used_up' });
      throw gone();
    }
    const token = newLinkToken();
    const credential = await repo.insertCredential({
      linkId: link.id,
      tokenHash: sha256Hex(token),
      recipient,
      expiresAt: link.expiresAt,
    });
    const principal = principalOf(link, { id: credential.id, recipient });
    const studies = await deps.access.visibleStudies(principal);
    if (studies.length === 0) {
      await audit('link.open', 'denied', link, [], meta, null, { recipient, reason: 'no_studies' });
      throw gone();
    }
    const bundle = await deps.bundle(
      principal,
      {
        studyIds: studies.map((s) => s.id),
        endpoint: { header: [`Authorization: Bearer ${token}`], expiresAt: link.expiresAt },
        interactiveUrl: viewerUrlOf(shlinkFor(link)),
      },
      meta,
    );
    const jwe = await encryptFile(deps.seal.decrypt(link.sealedKey), FHIR_JSON, JSON.stringify(bundle));
    await audit(
      'link.open',
      'success',
      link,
      studies.map((s) => s.id),
      meta,
      null,
      { recipient, credentialId: credential.id },
    );
    if (opened.first)
      await deps.notify(link.ownerId, {
        type: 'message',
        title: 'Your study link was opened',
        description: `${recipient} opened your link${link.label ? ` “${link.label}”` : ''} for the first time.`,
        path: '/links',
      });
    return { jwe, credentialId: credential.id };
  }

  /** Checks a passcode against the link's lifetime budget (IG: `P` flag). */
  async function checkPasscode(
    link: LinkRow,
    passcode: string | undefined,
    recipient: string,
    meta: RequestMeta,
  ) {
    if (!link.sealedPasscode) return;
    if (passcode && sameText(deps.seal.decrypt(link.sealedPasscode), passcode)) return;
    const spent = await repo.spendPasscodeAttempt(link.id, deps.now());
    const studyIds = (await repo.studiesOf([link.id])).map((s) => s.id);
    await audit('link.passcode', 'denied', link, studyIds, meta, null, {
      recipient,
      remainingAttempts: spent?.left ?? 0,
    });
    if (!spent) throw gone();
    if (spent.left === 0)
      await deps.notify(link.ownerId, {
        type: 'message',
        title: 'A study link was disabled',
        description: `Too many wrong passcodes were entered for your link${link.label ? ` “${link.label}”` : ''}. It no longer opens; make a new link if you still want to share.`,
        path: '/links',
      });
    throw new WrongPasscode(spent.left);
  }

  /** Every study must be the owner's own (the one access rule; 404 for any other). */
  async function requireOwnStudies(
    user: { id: string; role: Principal['role'] },
    studyIds: string[],
    meta: RequestMeta,
  ) {
    const principal: Principal = { userId: user.id, role: user.role, via: 'session', studyId: null };
    for (const id of studyIds)
      await deps.access.requireOwner(principal, id, meta, { auditAction: 'link.create' });
  }

  async function insertLink(
    owner: { id: string; role: Principal['role'] },
    studyIds: string[],
    policy: LinkPolicy,
    meta: RequestMeta,
  ): Promise<LinkRow> {
    const manifestId = random256();
    if (manifestUrl(manifestId).length > MANIFEST_URL_MAX)
      throw new AppError('INTERNAL', 'PUBLIC_URL is too long for SMART Health Links (see docs/links.md).');
    const link = await repo.insert(
      {
        ownerId: owner.id,
        manifestId,
        sealedKey: deps.seal.encrypt(random256()),
        mode: policy.mode,
        label: policy.label,
        sealedPasscode: policy.sealedPasscode,
        passcodeAttemptsLeft: PASSCODE_ATTEMPTS,
        allowDownload: policy.allowDownload,
        maxOpens: policy.maxOpens,
        expiresAt: new Date(policy.expiresAt),
      },
      studyIds,
    );
    await audit('link.create', 'success', link, studyIds, meta, owner, { mode: link.mode });
    return link;
  }

  return {
    /** The bearer credential kind for DICOMweb and /fhir/R4 (modules/dicomweb `sessionPrincipal`). */
    credentials: {
      isToken: (token: string) => token.startsWith(LINK_TOKEN_PREFIX),
      async principalForToken(token: string): Promise<Principal | null> {
        if (!token.startsWith(LINK_TOKEN_PREFIX) || token.length > 100) return null;
        const found = await repo.findLiveCredential({ tokenHash: sha256Hex(token) }, deps.now());
        return found ? principalOf(found.link, found.credential) : null;
      },
    },

    /** A credential by id as its principal, while it and its link live (the viewer origin's link grants). */
    async principalForCredential(credentialId: string): Promise<Principal | null> {
      const found = await repo.findLiveCredential({ id: credentialId }, deps.now());
      return found ? principalOf(found.link, found.credential) : null;
    },

    /**
     * A link for some of the owner's studies; with `deidentified`, for their de-identified copies
     * instead (modules/deidentify), made first when missing: the link then follows by
     * `createForCopies` and the owner is told it is ready.
     */
    async create(
      auth: AuthenticatedSession,
      body: CreateLink,
      meta: RequestMeta,
    ): Promise<CreatedLink | PendingLink> {
      if (body.mode === 'checkin' && body.passcode)
        throw new AppError(
          'VALIDATION_ERROR',
          'A check-in link opens without a passcode; choose a share link for one.',
        );
      checkExpiry(body.mode, new Date(body.expiresAt), !!body.passcode);
      const studyIds = [...new Set(body.studyIds)];
      const owner = await deps.users.findById(auth.user.id);
      await requireOwnStudies(auth.user, studyIds, meta);
      // A link opens nothing while sharing is off (Settings, 'Share Medical Records'): say so now.
      if (!owner?.shareMedicalData) throw new AppError('FORBIDDEN', SHARING_OFF_MESSAGE);
      // Sealed, not hashed: a passcode of a few characters falls to an offline guess of any hash,
      // so the key (from SESSION_SECRET) protects it at rest and the lifetime budget online.
      const sealedPasscode = body.passcode ? deps.seal.encrypt(body.passcode) : null;
      const policy: LinkPolicy = {
        mode: body.mode,
        label: body.label?.trim() || null,
        sealedPasscode,
        allowDownload: body.allowDownload,
        maxOpens: body.maxOpens ?? null,
        expiresAt: body.expiresAt,
      };
      if (!body.deidentified) return present(await insertLink(owner, studyIds, policy, meta));
      const prepared = await deps.deidentified.prepare(owner.id, studyIds, { kind: 'link', policy });
      if ('ready' in prepared) return present(await insertLink(owner, prepared.ready, policy, meta));
      await audit('link.create.deidentified', 'success', null, studyIds, meta, auth.user, {
        jobId: prepared.queued,
      });
      return {
        pending: true,
        jobId: prepared.queued,
        message:
          'De-identified copies are being made. The link will be on your Links page when they are ready; we will tell you.',
      };
    },

    /** The link a de-identified link asked for, once its copies exist (the deidentified-send job). */
    async createForCopies(ownerId: string, copyStudyIds: string[], then: Record<string, unknown>) {
      const owner = await deps.users.findById(ownerId);
      if (!owner || owner.accountStatus !== 'active')
        throw new AppError('FORBIDDEN', 'The account is not active.');
      if (!owner.shareMedicalData) throw new AppError('FORBIDDEN', SHARING_OFF_MESSAGE);
      const policy = linkPolicySchema.parse(then.policy);
      checkExpiry(policy.mode, new Date(policy.expiresAt), policy.sealedPasscode !== null);
      const meta = { requestId: `deidentified-link:${copyStudyIds[0]}`, ip: '' };
      await requireOwnStudies(owner, copyStudyIds, meta);
      const link = await insertLink(owner, copyStudyIds, policy, meta);
      await deps.notify(ownerId, {
        type: 'message',
        title: 'Your de-identified link is ready',
        description: `Your link${link.label ? ` “${link.label}”` : ''} to de-identified copies is ready: show its QR code or copy it from the Links page.`,
        path: '/links',
      });
    },

    /** The link again, for its owner (showing its QR code later). */
    async share(auth: AuthenticatedSession, linkId: string): Promise<CreatedLink> {
      const link = await ownedLink(auth, linkId);
      return present(link);
    },

    async list(auth: AuthenticatedSession, studyId?: string): Promise<LinkSummary[]> {
      return summaries(await repo.listForOwner(auth.user.id, studyId));
    },

    async update(
      auth: AuthenticatedSession,
      linkId: string,
      change: UpdateLinkRequest,
      meta: RequestMeta,
    ): Promise<LinkSummary> {
      const link = await ownedLink(auth, linkId);
      if (link.revokedAt) throw new AppError('CONFLICT', 'This link was revoked; make a new one.');
      const set: Partial<Pick<LinkRow, 'pausedAt' | 'expiresAt'>> = {};
      if (change.expiresAt !== undefined) {
        const expiresAt = new Date(change.expiresAt);
        checkExpiry(link.mode, expiresAt, link.sealedPasscode !== null);
        set.expiresAt = expiresAt;
      }
      if (change.paused !== undefined) set.pausedAt = change.paused ? (link.pausedAt ?? deps.now()) : null;
      const updated = await repo.update(link.id, set);
      if (!updated) throw new AppError('CONFLICT', 'This link was revoked; make a new one.');
      const studyIds = (await repo.studiesOf([link.id])).map((s) => s.id);
      const action =
        change.paused === true ? 'link.pause' : change.paused === false ? 'link.resume' : 'link.extend';
      await audit(
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
      const [summary] = await summaries([updated]);
      return summary!;
    },

    async revoke(auth: AuthenticatedSession, linkId: string, meta: RequestMeta): Promise<void> {
      const link = await ownedLink(auth, linkId);
      if (link.revokedAt) return;
      await repo.update(link.id, { revokedAt: deps.now() });
      const studyIds = (await repo.studiesOf([link.id])).map((s) => s.id);
      await audit('link.revoke', 'success', link, studyIds, meta, { id: auth.user.id, role: auth.user.role });
    },

    /** POST to a share link's manifest URL (IG: manifest request). */
    async manifest(
      manifestId: string,
      request: { recipient: string; passcode?: string; embeddedLengthMax?: number },
      meta: RequestMeta,
    ): Promise<Manifest> {
      const link = /^[A-Za-z0-9_-]{43}$/.test(manifestId)
        ? await repo.findLiveByManifest(manifestId, deps.now())
        : undefined;
      if (!link || link.mode !== 'share') throw gone();
      await checkPasscode(link, request.passcode, request.recipient, meta);
      const { jwe, credentialId } = await open(link, request.recipient, meta);
      const max = request.embeddedLengthMax ?? EMBED_BY_DEFAULT_MAX;
      if (jwe.length <= max) return { files: [{ contentType: FHIR_JSON, embedded: jwe }] };
      const fileToken = random256();
      await repo.deleteExpiredFiles(deps.now());
      await repo.insertFile({
        linkId: link.id,
        credentialId,
        tokenHash: sha256Hex(fileToken),
        kind: 'file',
        body: jwe,
        expiresAt: new Date(Math.min(deps.now().getTime() + LOCATION_TTL_MS, link.expiresAt.getTime())),
      });
      return { files: [{ contentType: FHIR_JSON, location: `${deps.publicUrl}/api/shl/f/${fileToken}` }] };
    },

    /** GET of a check-in link's URL (IG: `U` flag, direct file): the encrypted file itself. */
    async directFile(manifestId: string, recipient: string | undefined, meta: RequestMeta): Promise<string> {
      const link = /^[A-Za-z0-9_-]{43}$/.test(manifestId)
        ? await repo.findLiveByManifest(manifestId, deps.now())
        : undefined;
      if (!link || link.mode !== 'checkin') throw gone();
      const name = recipient?.trim();
      if (!name) throw new AppError('VALIDATION_ERROR', 'The recipient query parameter is required.');
      return (await open(link, name.slice(0, LINK_RECIPIENT_MAX), meta)).jwe;
    },

    /** A manifest's `location` URL: the encrypted file, while it and its link live. */
    async locationFile(fileToken: string, meta: RequestMeta): Promise<string> {
      const found = /^[A-Za-z0-9_-]{43}$/.test(fileToken)
        ? await repo.takeFile(sha256Hex(fileToken), 'file', deps.now())
        : undefined;
      if (!found) throw gone();
      const studyIds = (await repo.studiesOf([found.link.id])).map((s) => s.id);
      await audit('link.file', 'success', found.link, studyIds, meta, null, {
        recipient: found.credential.recipient,
      });
      return found.file.body;
    },

    /** 'Open images' on the link's page: the viewer origin's address with a grant read as the link. */
    async openViewer(token: string, studyId: string, meta: RequestMeta): Promise<{ viewerUrl: string }> {
      const found = token.startsWith(LINK_TOKEN_PREFIX)
        ? await repo.findLiveCredential({ tokenHash: sha256Hex(token) }, deps.now())
        : undefined;
      if (!found) throw gone();
      const principal = principalOf(found.link, found.credential);
      const study = await deps.access.requireStudyAccess(principal, 'read', { id: studyId }, meta, {
        auditAction: 'link.view',
        notFoundMessage: LINK_GONE,
      });
      const grant = await deps.viewerGrant(found.link.ownerId, study.id, {
        credentialId: found.credential.id,
        expiresAt: found.credential.expiresAt,
      });
      await audit('link.view', 'success', found.link, [study.id], meta, null, {
        recipient: found.credential.recipient,
      });
      return {
        viewerUrl: `${deps.viewerPublicUrl}/viewer?StudyInstanceUIDs=${encodeURIComponent(study.studyInstanceUid)}#grant=${grant.token}`,
      };
    },

    /** 'Download' on the link's page, when the owner allowed it: a ticket URL that streams the ZIP. */
    async downloadTicket(token: string, studyId: string, meta: RequestMeta): Promise<{ url: string }> {
      const found = token.startsWith(LINK_TOKEN_PREFIX)
        ? await repo.findLiveCredential({ tokenHash: sha256Hex(token) }, deps.now())
        : undefined;
      if (!found) throw gone();
      const principal = principalOf(found.link, found.credential);
      const study = await deps.access.requireStudyAccess(principal, 'download', { id: studyId }, meta, {
        auditAction: 'link.download',
        notFoundMessage: 'Downloads are not allowed for this link, or it has ended.',
      });
      const ticket = random256();
      await repo.insertFile({
        linkId: found.link.id,
        credentialId: found.credential.id,
        tokenHash: sha256Hex(ticket),
        kind: 'download',
        body: study.id,
        expiresAt: new Date(Math.min(deps.now().getTime() + LOCATION_TTL_MS, found.link.expiresAt.getTime())),
      });
      return { url: `${deps.publicUrl}/api/shl/d/${ticket}` };
    },

    /** The principal and study of a download ticket (the route streams the study's ZIP as it). */
    async redeemDownload(ticket: string): Promise<{ principal: Principal; studyId: string }> {
      const found = /^[A-Za-z0-9_-]{43}$/.test(ticket)
        ? await repo.takeFile(sha256Hex(ticket), 'download', deps.now())
        : undefined;
      if (!found) throw gone();
      return { principal: principalOf(found.link, found.credential), studyId: found.file.body };
    },
  };
}
export type LinksService = ReturnType<typeof createLinksService>;
