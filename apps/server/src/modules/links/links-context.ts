import QRCode from 'qrcode';
import {
  CHECKIN_MAX_MINUTES,
  type CreatedLink,
  LINK_MAX_DAYS,
  type LinkStatus,
  type LinkSummary,
  PASSCODE_REQUIRED_AFTER_HOURS,
} from '@mi/contracts/links';
import { z } from 'zod';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { AccessService, Principal } from '../access';
import type { UsersRepository } from '../accounts';
import type { AuditRecorder } from '../audit';
import type { DeidentifyService } from '../deidentify';
import type { NotificationEvent } from '../notifications';
import type { LinkRow, LinksRepository, LinkStudy } from './links.repository';
import { shlinkOf } from './links-crypto';

// What the parts of the links service (links.service.ts) share: its dependencies, the link's
// policy, and how a link is shown, audited and acted as.

/** A link's policy as the owner chose it, the passcode already sealed (a job may carry it). */
export const linkPolicySchema = z.object({
  mode: z.enum(['share', 'checkin']),
  label: z.string().nullable(),
  sealedPasscode: z.string().nullable(),
  allowDownload: z.boolean(),
  maxOpens: z.number().int().nullable(),
  expiresAt: z.string(),
});
export type LinkPolicy = z.infer<typeof linkPolicySchema>;

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

export const FHIR_JSON = 'application/fhir+json';
/** A manifest's `location` URLs, and download tickets, live at most this long (IG: at most one hour). */
export const LOCATION_TTL_MS = 60 * 60 * 1000;
/** Without an `embeddedLengthMax`, files up to this many characters are embedded in the manifest. */
export const EMBED_BY_DEFAULT_MAX = 4 * 1024 * 1024;
/** The IG bounds the manifest URL. */
export const MANIFEST_URL_MAX = 128;
export const LINK_GONE = 'This link has expired, was revoked or does not exist.';
export const gone = () => new AppError('NOT_FOUND', LINK_GONE);

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

export const manifestUrl = (deps: LinksDeps, manifestId: string) =>
  `${deps.publicUrl}/api/shl/m/${manifestId}`;
export const viewerUrlOf = (deps: LinksDeps, shlink: string) => `${deps.publicUrl}/shl#${shlink}`;

export function shlinkFor(deps: LinksDeps, link: LinkRow): string {
  return shlinkOf({
    url: manifestUrl(deps, link.manifestId),
    key: deps.seal.decrypt(link.sealedKey),
    exp: Math.floor(link.expiresAt.getTime() / 1000),
    flag: link.mode === 'checkin' ? 'U' : link.sealedPasscode ? 'P' : undefined,
    label: link.label ?? undefined,
    v: 1,
  });
}

export async function auditLink(
  deps: LinksDeps,
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
export function checkExpiry(deps: LinksDeps, mode: LinkRow['mode'], expiresAt: Date, hasPasscode: boolean) {
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

export async function summaries(deps: LinksDeps, links: LinkRow[]): Promise<LinkSummary[]> {
  const studies = await deps.repo.studiesOf(links.map((l) => l.id));
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
export async function present(deps: LinksDeps, link: LinkRow): Promise<CreatedLink> {
  const shlink = shlinkFor(deps, link);
  const viewerUrl = viewerUrlOf(deps, shlink);
  const qrSvg = await QRCode.toString(viewerUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  const [summary] = await summaries(deps, [link]);
  return { id: link.id, shlink, viewerUrl, qrSvg, link: summary! };
}

/** The principal a link's credential acts as: the link's recipient, answered for by its owner. */
export function principalOf(link: LinkRow, credential: { id: string; recipient: string }): Principal {
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
