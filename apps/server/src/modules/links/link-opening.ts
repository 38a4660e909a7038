import { LINK_RECIPIENT_MAX } from '@mi/contracts/links';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { LinkRow } from './links.repository';
import {
  auditLink,
  EMBED_BY_DEFAULT_MAX,
  FHIR_JSON,
  gone,
  type LinksDeps,
  LOCATION_TTL_MS,
  type Manifest,
  principalOf,
  shlinkFor,
  viewerUrlOf,
  WrongPasscode,
} from './links-context';
import { encryptFile, newLinkToken, random256, sameText, sha256Hex } from './links-crypto';

/**
 * One open of a live link by `recipient`: counts it (within the maximum), issues the recipient's
 * credential, and encrypts the Bundle of the studies it opens. The owner hears of the first open.
 */
async function open(
  deps: LinksDeps,
  link: LinkRow,
  recipient: string,
  meta: RequestMeta,
): Promise<{ jwe: string; credentialId: string }> {
  const { repo } = deps;
  const opened = await repo.countOpen(link.id, recipient, deps.now());
  if (!opened) {
    await auditLink(deps, 'link.open', 'denied', link, [], meta, null, { recipient, reason: 'used_up' });
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
    await auditLink(deps, 'link.open', 'denied', link, [], meta, null, { recipient, reason: 'no_studies' });
    throw gone();
  }
  const bundle = await deps.bundle(
    principal,
    {
      studyIds: studies.map((s) => s.id),
      endpoint: { header: [`Authorization: Bearer ${token}`], expiresAt: link.expiresAt },
      interactiveUrl: viewerUrlOf(deps, shlinkFor(deps, link)),
    },
    meta,
  );
  const jwe = await encryptFile(deps.seal.decrypt(link.sealedKey), FHIR_JSON, JSON.stringify(bundle));
  await auditLink(
    deps,
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
  deps: LinksDeps,
  link: LinkRow,
  passcode: string | undefined,
  recipient: string,
  meta: RequestMeta,
) {
  if (!link.sealedPasscode) return;
  if (passcode && sameText(deps.seal.decrypt(link.sealedPasscode), passcode)) return;
  const spent = await deps.repo.spendPasscodeAttempt(link.id, deps.now());
  const studyIds = (await deps.repo.studiesOf([link.id])).map((s) => s.id);
  await auditLink(deps, 'link.passcode', 'denied', link, studyIds, meta, null, {
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

/** The SMART Health Links protocol a recipient's app speaks: the manifest and the encrypted file. */
export function createLinkOpening(deps: LinksDeps) {
  const { repo } = deps;
  return {
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
      await checkPasscode(deps, link, request.passcode, request.recipient, meta);
      const { jwe, credentialId } = await open(deps, link, request.recipient, meta);
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
      return (await open(deps, link, name.slice(0, LINK_RECIPIENT_MAX), meta)).jwe;
    },

    /** A manifest's `location` URL: the encrypted file, while it and its link live. */
    async locationFile(fileToken: string, meta: RequestMeta): Promise<string> {
      const found = /^[A-Za-z0-9_-]{43}$/.test(fileToken)
        ? await repo.takeFile(sha256Hex(fileToken), 'file', deps.now())
        : undefined;
      if (!found) throw gone();
      const studyIds = (await repo.studiesOf([found.link.id])).map((s) => s.id);
      await auditLink(deps, 'link.file', 'success', found.link, studyIds, meta, null, {
        recipient: found.credential.recipient,
      });
      return found.file.body;
    },
  };
}
