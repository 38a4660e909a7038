import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { eq, inArray } from 'drizzle-orm';
import sharp from 'sharp';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

/**
 * Every Fastify instance the apps create records its routes from the first moment, through an
 * onRoute hook added before any plugin is registered: the route table below is checked against
 * what the apps really serve, so a route added later cannot go untested.
 */
const registry = vi.hoisted(() => new WeakMap<object, Array<{ method: string; url: string }>>());
vi.mock('fastify', async (importOriginal) => {
  const mod = await importOriginal<typeof import('fastify')>();
  const create = mod.default as unknown as (...args: unknown[]) => FastifyInstance;
  const factory = ((...args: unknown[]) => {
    const app = create(...args);
    const routes: Array<{ method: string; url: string }> = [];
    registry.set(app, routes);
    app.addHook('onRoute', (route: RouteOptions) => {
      for (const method of [route.method].flat()) routes.push({ method, url: route.url });
    });
    return app;
  }) as unknown as typeof mod.default;
  return { ...mod, default: factory, fastify: factory };
});

import { notifications, users } from '../../src/db/schema/index';
import { buildApp } from '../../src/http/app';
import { DICOMWEB_ROOT } from '../../src/modules/dicomweb/dicomweb.service';
import { buildViewerApp } from '../../src/modules/viewer/viewer-app';
import { ensureAdmin } from '../../src/seed';
import type { Services } from '../../src/services';
import { ingestFiles } from '../helpers/dicom-ingest';
import { completeProfile, offeringProfessional, verifiedProfessional } from '../helpers/directory';
import { buildZip, jobSettled, makeDicom, newPatient, uid } from '../helpers/studies';
import { createTestContext, registerUser, strongPassword, type TestContext } from '../helpers/test-app';

/**
 * `recipient` has a live share of the owner's study; `revoked` had one until it was revoked;
 * `assigned` is the professional who accepted an Expert Review order of the owner's study.
 */
const ACTORS = [
  'stranger',
  'anonymous',
  'admin',
  'pending',
  'revoked',
  'assigned',
  'recipient',
  'owner',
] as const;
type Actor = (typeof ACTORS)[number];

/**
 * What one actor must get: `ok` a 2xx, a number (or one of several) exactly that status. Anything
 * else fails, and so does any 5xx.
 */
type Outcome = 'ok' | number | readonly number[];
type Expect = Record<Actor, Outcome>;

interface Fixtures {
  owner: Account & { studyId: string; studyUid: string; seriesUid: string; sopUid: string };
  stranger: Account;
  recipient: Account;
  revoked: Account;
  /**
   * A verified professional who published a directory profile (`assignedProviderId`) offering
   * Expert Review and the Complete Analysis Package, and accepted `assignedOrderId`.
   */
  assigned: Account;
  assignedProviderId: string;
  /** The owner's paid Expert Review order of `owner.studyId`, in progress with `assigned`. */
  assignedOrderId: string;
  /** The owner's Expert Review of another study of theirs, delivered by `assigned` and rated by the owner. */
  ratedOrderId: string;
  /** A live share of the owner's (revoked by the revoke route). */
  throwawayShareId: string;
  /** A share of the owner's study sent to an email nobody has confirmed. */
  pendingShareId: string;
  /** A study of the owner's the transfer route moves to the recipient. */
  transferStudyId: string;
  /** A directory provider (the assigned professional's profile). */
  providerId: string;
  admin: Account;
  pending: Account;
  loginTarget: Account;
  /** The owner's second study, deleted by the delete route. */
  throwawayStudyId: string;
  notificationId: string;
  /** A finished upload of the owner's, ready to be processed. */
  completeUpload: string;
  /** An unfinished upload of the owner's (resumed, inspected and terminated by the tus routes). */
  openUpload: string;
  /** A session of the owner's other than `owner.token`, ended by the session delete route. */
  spareSessionId: string;
  applicants: { approve: string; reject: string };
  uploadTokens: Partial<Record<Actor, string>>;
  /** Viewer credentials, bound to their browser (grant + binding cookie). */
  grants: Partial<Record<Actor, { authorization: string; cookie: string }>>;
}

interface Account {
  id: string;
  email: string;
  password: string;
  token: string;
}

interface Entry {
  expect: Expect;
  /** Path parameters; the defaults (userId, studyId, DICOM UIDs, frames, tag) are the owner's. */
  params?: (f: Fixtures) => Record<string, string>;
  /** Query, body and headers beyond the actor's credential (an `authorization` header here replaces it). */
  request?: (actor: Actor, f: Fixtures) => Promise<Partial<InjectOptions>> | Partial<InjectOptions>;
  /** Which credential the route takes: the app session (default), an upload token or none. */
  credential?: 'session' | 'upload' | 'none';
  /** Runs after every other route (it ends or removes something). DELETE routes always do. */
  last?: boolean;
  /** Actors whose 2xx may mention the owner (the admin reading the outbox). */
  mayReveal?: Actor[];
  /** A further check of an answer that has the expected status; returns what is wrong. */
  check?: (res: LightMyRequestResponse, actor: Actor, f: Fixtures) => string | undefined;
}

// --- Who may get what ---------------------------------------------------------------------------

const every = (o: Outcome): Expect => ({
  owner: o,
  stranger: o,
  anonymous: o,
  admin: o,
  pending: o,
  recipient: o,
  revoked: o,
  assigned: o,
});
/** No sign-in needed (health, docs, sign-in screens, static files). */
const PUBLIC = every('ok');
/** Anything derived from the owner's user or study: a stranger and an admin find nothing. */
const OWNED: Expect = {
  owner: 'ok',
  stranger: 404,
  anonymous: 401,
  admin: 404,
  pending: 403,
  recipient: 404,
  revoked: 404,
  assigned: 404,
};
/**
 * Reading the owner's study: the owner, the recipient of a live share and the professional of an
 * order in progress; a revoked recipient finds nothing.
 */
const READ: Expect = { ...OWNED, recipient: 'ok', assigned: 'ok' };
/** Those who may read the owner's study (READ) see it in the answers. */
const READERS: Actor[] = ['recipient', 'assigned'];
/** Routes a recipient or the order's professional may read reveal the owner's study to them. */
const readable = (entry: Omit<Entry, 'expect'> = {}): Entry => ({
  expect: READ,
  mayReveal: READERS,
  ...entry,
});
/** The caller's own data, for active accounts (a pending professional waits for verification). */
const SELF: Expect = {
  owner: 'ok',
  stranger: 'ok',
  anonymous: 401,
  admin: 'ok',
  pending: 403,
  recipient: 'ok',
  revoked: 'ok',
  assigned: 'ok',
};
/** Any signed-in session, pending professionals included (who they are, their sessions). */
const SESSION: Expect = { ...SELF, pending: 'ok' };
/**
 * A verified professional's own workspace (directory profile, offers): the assigned professional's
 * only. Everyone else finds nothing; a pending professional waits for verification.
 */
const PROFESSIONAL: Expect = { ...every(404), anonymous: 401, pending: 403, assigned: 'ok' };
/** Admin area: missing for everyone else. */
const ADMIN: Expect = { ...every(404), admin: 'ok' };
/** The viewer origin, study-derived: only the grant for that study opens it. */
const GRANT_STUDY: Expect = {
  owner: 'ok',
  stranger: 404,
  anonymous: 401,
  admin: 401,
  pending: 401,
  recipient: 'ok',
  revoked: 404,
  assigned: 'ok',
};
/** The viewer origin, scoped by the caller's own grant (searches, binding). */
const GRANT_SELF: Expect = { ...GRANT_STUDY, stranger: 'ok', revoked: 'ok' };

const b64 = (s: string) => Buffer.from(s).toString('base64');
const tus = { 'tus-resumable': '1.0.0' };

/** The Accept header a study-scoped DICOMweb route answers the owner with a 2xx. */
function dicomAccept(url: string): string {
  if (url.endsWith('/thumbnail')) return 'image/jpeg';
  if (/\/(metadata|series|instances)$/.test(url)) return 'application/dicom+json';
  if (/\/(frames\/:frames|bulkdata\/:tag)$/.test(url))
    return 'multipart/related; type="application/octet-stream"; transfer-syntax=*';
  return 'multipart/related; type="application/dicom"; transfer-syntax=*';
}

const DICOMWEB_SEARCH = ['/studies', '/series', '/instances'];
const DICOMWEB_STUDY = [
  '/studies/:study/series',
  '/studies/:study/instances',
  '/studies/:study/series/:series/instances',
  '/studies/:study/metadata',
  '/studies/:study/series/:series/metadata',
  '/studies/:study/series/:series/instances/:instance/metadata',
  '/studies/:study',
  '/studies/:study/series/:series',
  '/studies/:study/series/:series/instances/:instance',
  '/studies/:study/series/:series/instances/:instance/frames/:frames',
  '/studies/:study/series/:series/instances/:instance/bulkdata/:tag',
  '/studies/:study/thumbnail',
  '/studies/:study/series/:series/thumbnail',
  '/studies/:study/series/:series/instances/:instance/thumbnail',
  '/studies/:study/series/:series/instances/:instance/frames/:frame/thumbnail',
];

/** The DICOMweb routes as both origins register them; only who may call them differs. */
function dicomwebTable(search: Expect, study: Expect): Record<string, Entry> {
  const table: Record<string, Entry> = {};
  for (const p of DICOMWEB_SEARCH) {
    table[`GET ${DICOMWEB_ROOT}${p}`] = {
      expect: search,
      mayReveal: READERS,
      // Searches answer the caller's own studies; aimed at the owner's study, others find nothing.
      request: (_a, f) => ({
        query: { StudyInstanceUID: f.owner.studyUid },
        headers: { accept: 'application/dicom+json' },
      }),
    };
  }
  for (const p of DICOMWEB_STUDY) {
    const accept = dicomAccept(p);
    table[`GET ${DICOMWEB_ROOT}${p}`] = {
      expect: study,
      mayReveal: READERS,
      request: () => ({ headers: { accept } }),
    };
  }
  table[`GET ${DICOMWEB_ROOT}/wado`] = {
    expect: study,
    mayReveal: READERS,
    request: (_a, f) => ({
      query: {
        requestType: 'WADO',
        studyUID: f.owner.studyUid,
        seriesUID: f.owner.seriesUid,
        objectUID: f.owner.sopUid,
        contentType: 'application/dicom',
      },
    }),
  };
  return table;
}

const professional = (email: string) => ({
  role: 'professional',
  name: 'Dana Scully',
  mobilePhone: '+15550111',
  license: { number: 'MD-12345', state: 'MD', expiryDate: '2030-06-30' },
  specialty: 'Radiology',
  hospital: 'Georgetown Hospital',
  position: 'Attending',
  email,
});

let ctx: TestContext;
let mainApp: FastifyInstance;
let viewerApp: FastifyInstance;
let fixtures: Fixtures;

/**
 * The main app's routes: `METHOD url` → who may get a 2xx and what everyone else gets. A HEAD
 * route Fastify adds for a GET shares the GET's entry.
 */
const MAIN: Record<string, Entry> = {
  'GET /api/docs': { expect: PUBLIC },
  'GET /api/health': { expect: PUBLIC },
  'GET /api/config': { expect: PUBLIC },
  'GET /api/auth/captcha/challenge': { expect: PUBLIC },
  'POST /api/auth/register': {
    expect: PUBLIC,
    request: async (actor) => ({
      payload: {
        email: `registers-${actor}@example.com`,
        password: strongPassword,
        name: 'New Patient',
        role: 'patient',
        acceptTerms: true,
        captcha: await ctx.captcha(),
      },
    }),
  },
  'POST /api/auth/login': {
    expect: PUBLIC,
    request: async (_a, f) => ({
      payload: { email: f.loginTarget.email, password: strongPassword, captcha: await ctx.captcha() },
    }),
  },
  // Google sign-in is not configured here: nobody gets in, whoever asks.
  'POST /api/auth/google': { expect: every(400), request: () => ({ payload: { credential: 'not-a-jwt' } }) },
  // The refresh token is the credential; a session alone refreshes nothing.
  'POST /api/auth/refresh': {
    expect: every(401),
    request: () => ({ payload: { refreshToken: 'rt_forged' } }),
  },
  'POST /api/auth/logout': {
    expect: PUBLIC,
    last: true,
    // Each signed-in actor ends a session of its own made for this call.
    request: async (actor, f) =>
      actor === 'anonymous' ? {} : { headers: { authorization: `Bearer ${await spareToken(f[actor])}` } },
  },
  // The emailed unlock link: a forged token unlocks nothing, whoever follows it.
  'GET /api/auth/unlock': {
    expect: every(302),
    request: () => ({ query: { token: 'forged-token' } }),
    check: (res) =>
      String(res.headers.location).endsWith('unlocked=0') ? undefined : 'a forged token unlocked',
  },
  'GET /api/auth/me': { expect: SESSION },
  'POST /api/auth/forgot-password': {
    expect: PUBLIC,
    request: () => ({ payload: { email: 'nobody@example.com' } }),
  },
  'POST /api/auth/verifyResetToken': {
    expect: PUBLIC,
    request: (_a, f) => ({ payload: { email: f.owner.email, challenge: 'forged-challenge' } }),
    check: (res) => (res.json().isValid === false ? undefined : 'a forged reset link was accepted'),
  },
  'POST /api/auth/reset-password': {
    expect: every(400),
    request: (_a, f) => ({
      payload: { email: f.owner.email, challenge: 'forged-challenge', newPassword: 'N3w!Passw0rd-1' },
    }),
  },
  'POST /api/auth/verify-email': {
    expect: every(400),
    request: () => ({ payload: { token: 'forged-token' } }),
  },
  'POST /api/auth/verify-email/resend': { expect: SESSION },
  'GET /api/auth/sessions': { expect: SESSION },
  'DELETE /api/auth/sessions/:id': {
    // Someone else's session looks missing.
    expect: { ...OWNED, pending: 404 },
    params: (f) => ({ id: f.spareSessionId }),
    request: freshProof,
  },
  'POST /api/auth/sessions/revoke-others': { expect: SESSION, last: true, request: freshProof },
  // Confirming it is you: a wrong password (or no code asked for) proves nothing, whoever asks.
  'POST /api/auth/reauthenticate': {
    expect: { ...every(401), pending: 403 },
    request: () => ({ payload: { password: 'not-the-password' } }),
  },
  'POST /api/auth/reauthenticate/code': { expect: { ...every(400), anonymous: 401, pending: 403 } },
  'POST /api/auth/password': {
    expect: { ...every(401), pending: 403 },
    request: () => ({ payload: { currentPassword: 'not-the-password', newPassword: 'N3w!Passw0rd-1' } }),
  },
  // A link to the new address, which changes nothing until it is opened.
  'POST /api/auth/email': {
    expect: SELF,
    request: async (actor, f) => ({
      ...(await freshProof(actor, f)),
      payload: { newEmail: `moves-${actor}@example.com` },
    }),
  },

  'GET /api/admin/outbox': { expect: ADMIN, mayReveal: ['admin'] },
  'GET /api/admin/jobs/failed': { expect: ADMIN },
  'GET /api/admin/professionals': { expect: ADMIN },
  'POST /api/admin/professionals/:id/approve': {
    expect: ADMIN,
    params: (f) => ({ id: f.applicants.approve }),
  },
  'POST /api/admin/professionals/:id/reject': {
    expect: ADMIN,
    params: (f) => ({ id: f.applicants.reject }),
    request: () => ({ payload: { reason: 'The licence could not be verified.' } }),
  },

  // Admin console: accounts, audit log, health, job retry; signing in again (a wrong password here).
  'POST /api/admin/reauth': {
    expect: { ...every(404), admin: 401 },
    request: () => ({ payload: { password: 'not-the-password' } }),
  },
  'GET /api/admin/users': { expect: ADMIN, mayReveal: ['admin'] },
  'GET /api/admin/users/:id': { expect: ADMIN, params: (f) => ({ id: f.stranger.id }) },
  'POST /api/admin/users/:id/disable': {
    expect: ADMIN,
    params: (f) => ({ id: f.applicants.reject }),
    request: () => ({ payload: { reason: 'Matrix check' } }),
    last: true,
  },
  'POST /api/admin/users/:id/enable': { expect: ADMIN, params: (f) => ({ id: f.applicants.reject }) },
  // Resetting the second factor ends the user's sessions: an applicant's, whose sessions nothing uses.
  'POST /api/admin/users/:id/reset-mfa': { expect: ADMIN, params: (f) => ({ id: f.applicants.approve }) },
  'PUT /api/admin/users/:id/quota': {
    expect: ADMIN,
    params: (f) => ({ id: f.stranger.id }),
    request: () => ({ payload: { maxStorageGB: 20 } }),
  },
  'GET /api/admin/audit': { expect: ADMIN, mayReveal: ['admin'] },
  'GET /api/admin/audit/export': { expect: ADMIN, mayReveal: ['admin'] },
  'GET /api/admin/health': { expect: ADMIN },
  // No failed job has this id: the admin finds nothing to retry either.
  'POST /api/admin/jobs/:id/retry': {
    expect: every(404),
    params: () => ({ id: '00000000-0000-0000-0000-000000000000' }),
  },

  // The second factor of a sign-in: only the pending sign-in's token opens it.
  'POST /api/mfa/verify': {
    expect: every(401),
    request: (_a, f) => ({
      payload: { mfaSecret: '123456', email: f.owner.email, userId: f.owner.id, mfaToken: 'forged' },
    }),
  },
  'POST /api/mfa/resend': {
    expect: every(401),
    request: (_a, f) => ({ payload: { email: f.owner.email, mfaToken: 'forged' } }),
  },
  'POST /api/mfa/totp/setup': { expect: SELF, request: freshProof },
  // Past the access check, a wrong code is refused (400).
  'POST /api/mfa/totp/confirm': {
    expect: { ...SELF, owner: 400, stranger: 400, admin: 400, recipient: 400, revoked: 400, assigned: 400 },
    request: async (actor, f) => ({ ...(await freshProof(actor, f)), payload: { code: '000000' } }),
  },
  // Removing an authenticator nobody added changes nothing and succeeds.
  'DELETE /api/mfa/totp': { expect: SELF, request: freshProof },

  'PUT /api/users/:id': {
    expect: OWNED,
    params: (f) => ({ id: f.owner.id }),
    request: () => ({ payload: { welcomeModalShown: true } }),
  },

  'GET /api/storage/token': { expect: SELF },
  // tus: the upload token is the credential, and it writes only under its user's own prefix.
  'POST /api/uploads': {
    expect: { ...every(403), owner: 'ok', anonymous: 401, pending: 401 },
    credential: 'upload',
    request: (_a, f) => ({
      headers: {
        ...tus,
        'upload-length': '16',
        'upload-metadata': `objectName ${b64(`${f.owner.id}/${randomUUID()}/study.zip`)}`,
      },
    }),
  },
  // CORS preflight: browsers send it without credentials.
  'OPTIONS /api/uploads': { expect: PUBLIC, credential: 'none' },
  'OPTIONS /api/uploads/*': { expect: PUBLIC, credential: 'none', params: (f) => ({ '*': f.openUpload }) },
  'HEAD /api/uploads/*': {
    expect: { ...OWNED, pending: 401 },
    credential: 'upload',
    params: (f) => ({ '*': f.openUpload }),
    request: () => ({ headers: tus }),
  },
  'PATCH /api/uploads/*': {
    expect: { ...OWNED, pending: 401 },
    credential: 'upload',
    params: (f) => ({ '*': f.openUpload }),
    request: () => ({
      headers: { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
      payload: Buffer.from('PK'),
    }),
  },
  'DELETE /api/uploads/*': {
    expect: { ...OWNED, pending: 401 },
    credential: 'upload',
    params: (f) => ({ '*': f.openUpload }),
    request: () => ({ headers: tus }),
  },

  'POST /api/studies/process': {
    expect: OWNED,
    request: (_a, f) => ({ payload: { prefix: f.completeUpload, jobContext: { uploadType: 'regular' } } }),
    check: trackJob,
  },
  'GET /api/studies/user/:userId': { expect: OWNED },
  'GET /api/studies/study/:id': readable({ params: (f) => ({ id: f.owner.studyId }) }),
  'GET /api/studies/download/:studyId': { expect: OWNED },
  // De-identified copies (docs/deidentification.md): the owner only.
  'GET /api/studies/:studyId/deidentify/preview': { expect: OWNED },
  'POST /api/studies/:studyId/deidentified-copy': {
    expect: OWNED,
    request: () => ({ payload: {} }),
    check: trackJob,
  },
  'GET /api/studies/:studyId': readable(),
  'DELETE /api/studies/:userId/:studyId': { expect: OWNED, params: (f) => ({ studyId: f.throwawayStudyId }) },
  'GET /api/jobs/pending/:userId': { expect: OWNED },
  // 'Export my data': the owner's own exports only; an admin or a professional finds nothing.
  'POST /api/exports': {
    // The fixture's export may still be building: one export at a time (409).
    expect: { ...OWNED, owner: [202, 409] },
    request: (_a, f) => ({ payload: { studyIds: [f.owner.studyId] } }),
  },
  'GET /api/exports': { expect: SELF, mayReveal: [] },
  'GET /api/exports/:id': { expect: OWNED, params: () => ({ id: exportFixture.id }) },
  'GET /api/exports/:id/files/:name': {
    expect: OWNED,
    params: () => ({ id: exportFixture.id, name: exportFixture.name }),
  },
  'GET /api/notifications/': { expect: SELF },
  'GET /api/notifications/all': { expect: SELF },
  'PUT /api/notifications/read-all': { expect: SELF },
  'PUT /api/notifications/:id/read': { expect: OWNED, params: (f) => ({ id: f.notificationId }) },
  'POST /api/studies/transfer/:id': {
    ...readable(),
    params: (f) => ({ id: f.owner.studyId }),
    check: trackJob,
  },
  'GET /api/dicom/viewer/:studyId': readable(),

  // Sharing: only the owner manages the shares of a study; a recipient may ask for ownership.
  'POST /api/users/shares': {
    expect: OWNED,
    request: (actor) => ({
      payload: { email: `shared-by-${actor}@example.com`, studyId: fixtures.owner.studyId },
    }),
  },
  'DELETE /api/users/shares/:shareId': { expect: OWNED, params: (f) => ({ shareId: f.throwawayShareId }) },
  // Linking an emailed share: nobody here holds the email it was sent to.
  'PUT /api/users/shares/:shareId': {
    expect: { ...every(404), anonymous: 401, pending: 403 },
    params: (f) => ({ shareId: f.pendingShareId }),
    request: (actor, f) => ({
      payload: { targetUser: actor === 'anonymous' ? f.owner.id : f[actor].id, token: 'forged' },
    }),
  },
  'GET /api/users/shares/study/:studyId': { expect: OWNED },
  // Each caller's own shares with a provider: others get an empty list.
  'GET /api/users/shares/provider/:providerId': {
    expect: SELF,
    params: (f) => ({ providerId: f.providerId }),
  },
  'GET /api/users/shares/targetUser/:userId': { expect: OWNED },
  'GET /api/studies/:studyId/access': { expect: OWNED },
  'PUT /api/studies/ownership/transfer': {
    expect: OWNED,
    last: true,
    request: (_a, f) => ({ payload: { studyId: f.transferStudyId, requesterEmail: f.recipient.email } }),
  },
  // The owner cannot ask for their own study (409); only a live recipient can ask.
  'POST /api/studies/ownership/request': {
    expect: { ...OWNED, owner: 409, recipient: 'ok' },
    request: (_a, f) => ({ payload: { studyId: f.owner.studyId } }),
  },

  // Invitations: each signed-in, active user's own link and invitations.
  'POST /api/invite': {
    expect: SELF,
    request: (actor) => ({ payload: { email: `invited-by-${actor}@example.com` } }),
  },
  'POST /api/providers/invite': {
    expect: SELF,
    request: (actor) => ({ payload: { to: `provider-invited-by-${actor}@example.com` } }),
  },
  'GET /api/invitations/link': { expect: SELF },
  'POST /api/invitations/link': { expect: SELF },
  // A forged token is answered as not valid, revealing no inviter.
  'GET /api/invitations/check': {
    expect: SELF,
    request: () => ({ query: { token: `${randomUUID()}.forged` } }),
    check: (res) =>
      res.statusCode !== 200 || !res.body || res.json().valid === false
        ? undefined
        : 'a forged invitation token was accepted',
  },
  'GET /api/studies/:id/thumbnail': readable({ params: (f) => ({ id: f.owner.studyId }) }),

  // The provider directory and each user's own network; Admin → Providers.
  'GET /api/providers': { expect: SELF, request: () => ({ query: { q: 'a', experience: '15+' } }) },
  'GET /api/users/providers': { expect: SELF },
  'POST /api/users/providers': {
    expect: SELF,
    request: () => ({ payload: { providerId: directory.added } }),
  },
  'DELETE /api/users/providers': {
    expect: SELF,
    request: () => ({ payload: { providerId: directory.added } }),
  },
  'DELETE /api/users/providers/': {
    expect: SELF,
    request: () => ({ payload: { providerId: directory.added } }),
  },
  'GET /api/admin/providers': { expect: ADMIN },
  'POST /api/admin/providers': {
    expect: ADMIN,
    request: (actor) => ({
      payload: organisation(`Matrix Clinic ${actor}`, `matrix-${actor}@example.org`),
    }),
  },
  'PUT /api/admin/providers/:id': {
    expect: ADMIN,
    params: () => ({ id: directory.managed }),
    request: () => ({ payload: organisation('Matrix Managed Clinic', directory.managedEmail) }),
  },
  'POST /api/admin/providers/:id/retire': { expect: ADMIN, params: () => ({ id: directory.managed }) },
  'POST /api/admin/providers/:id/restore': { expect: ADMIN, params: () => ({ id: directory.managed }) },
  'PUT /api/admin/providers/:id/link': {
    expect: ADMIN,
    params: () => ({ id: directory.managed }),
    request: () => ({ payload: { email: directory.linkableEmail } }),
  },
  'DELETE /api/admin/providers/:id/link': { expect: ADMIN, params: () => ({ id: directory.managed }) },
  // Admin → Providers → AI vendor (docs/vendor-protocol.md).
  'PUT /api/admin/providers/:id/vendor': {
    expect: ADMIN,
    params: () => ({ id: directory.managed }),
    request: () => ({ payload: { webhookUrl: 'https://vendor.example.org/hooks/orders' } }),
  },
  'POST /api/admin/providers/:id/vendor/secret': {
    expect: ADMIN,
    params: () => ({ id: directory.managed }),
  },
  'DELETE /api/admin/providers/:id/vendor': { expect: ADMIN, params: () => ({ id: directory.managed }) },

  // Admin → Services: the catalogue's services and offers (a service of its own, see catalogueFixture).
  'GET /api/admin/services': { expect: ADMIN },
  'POST /api/admin/services': {
    expect: ADMIN,
    request: (actor) => ({ payload: { ...catalogueFixture.input, name: `Matrix service ${actor}` } }),
  },
  'PUT /api/admin/services/:id': {
    expect: ADMIN,
    params: () => ({ id: catalogueFixture.serviceId }),
    request: () => ({ payload: catalogueFixture.input }),
  },
  'POST /api/admin/services/:id/retire': {
    expect: ADMIN,
    params: () => ({ id: catalogueFixture.serviceId }),
  },
  'POST /api/admin/services/:id/restore': {
    expect: ADMIN,
    params: () => ({ id: catalogueFixture.serviceId }),
  },
  'POST /api/admin/services/:id/offers': {
    expect: ADMIN,
    params: () => ({ id: catalogueFixture.serviceId }),
    request: () => ({ payload: { providerId: catalogueFixture.newProviderId, price: 12.5 } }),
  },
  'PUT /api/admin/services/:id/offers/:providerId': {
    expect: ADMIN,
    params: () => ({ id: catalogueFixture.serviceId, providerId: catalogueFixture.offerProviderId }),
    request: () => ({ payload: { price: 99.99 } }),
  },
  'POST /api/admin/services/:id/offers/:providerId/retire': {
    expect: ADMIN,
    params: () => ({ id: catalogueFixture.serviceId, providerId: catalogueFixture.offerProviderId }),
  },
  'POST /api/admin/services/:id/offers/:providerId/restore': {
    expect: ADMIN,
    params: () => ({ id: catalogueFixture.serviceId, providerId: catalogueFixture.offerProviderId }),
  },

  // A verified professional's own directory profile and offers (Directory Profile). The assigned
  // professional keeps theirs complete, published and offering: pausing would refund their order.
  'GET /api/professional/profile': {
    expect: PROFESSIONAL,
    // (HEAD answers without a body.)
    check: (res, actor, f) =>
      actor === 'assigned' && res.body && res.json().providerId !== f.assignedProviderId
        ? 'another profile'
        : undefined,
  },
  'PUT /api/professional/profile': {
    expect: PROFESSIONAL,
    request: () => ({ payload: completeProfile }),
    check: (res, actor) =>
      actor === 'assigned' && res.json().publishedAt === null ? 'saving unpublished the profile' : undefined,
  },
  'POST /api/professional/profile/publish': {
    expect: PROFESSIONAL,
    request: () => ({ payload: { published: true } }),
  },
  'POST /api/professional/offers/pause': {
    expect: PROFESSIONAL,
    request: () => ({ payload: { paused: false } }),
  },
  'GET /api/professional/offers': { expect: PROFESSIONAL },
  'PUT /api/professional/offers/:serviceId': {
    expect: PROFESSIONAL,
    params: () => ({ serviceId: professionalOffer.serviceId }),
    request: () => ({ payload: professionalOffer.terms }),
  },
  'DELETE /api/professional/offers/:serviceId': {
    expect: PROFESSIONAL,
    params: () => ({ serviceId: professionalOffer.serviceId }),
  },

  // Ratings: only the buyer rates their own completed order; a provider's ratings are for everyone
  // signed in (without who gave them); Admin → Ratings shows the authors and hides comments.
  'PUT /api/orders/:id/rating': {
    expect: OWNED,
    params: (f) => ({ id: f.ratedOrderId }),
    request: () => ({ payload: { stars: 4, comment: 'Clear and quick.' } }),
  },
  'GET /api/providers/:id/ratings': {
    expect: SELF,
    params: (f) => ({ id: f.assignedProviderId }),
    check: (res) =>
      res.statusCode !== 200 || !res.body || res.json().ratingCount === 1
        ? undefined
        : 'the owner’s rating is not counted',
  },
  'GET /api/admin/ratings': { expect: ADMIN, mayReveal: ['admin'] },
  'PUT /api/admin/ratings/:orderId/comment': {
    expect: ADMIN,
    mayReveal: ['admin'],
    params: (f) => ({ orderId: f.ratedOrderId }),
    request: () => ({ payload: { hidden: true } }),
  },

  // Analysis services, orders and card payments: only the owner orders for their study; a
  // payment or order of someone else's is the one 404.
  'GET /api/services': { expect: SELF },
  'GET /api/purchases/user/:userId': { expect: OWNED },
  'POST /api/purchases': {
    // The owner's payment has not succeeded (409); nobody else's is found.
    expect: { ...every(404), anonymous: 401, pending: 403, owner: 409 },
    request: () => ({
      payload: { service: shop.serviceId, provider: shop.providerId, paymentIntentId: shop.ownerIntentId },
    }),
  },
  'POST /api/orders': {
    expect: OWNED,
    request: (_a, f) => ({
      payload: { serviceId: shop.serviceId, providerId: shop.providerId, studyId: f.owner.studyId },
    }),
  },
  'POST /api/orders/:id/cancel': { expect: OWNED, params: () => ({ id: shop.ownerOrderId }) },
  'GET /api/payments/config': { expect: SELF },
  'POST /api/payments/create-payment-intent': {
    expect: OWNED,
    request: (_a, f) => ({
      payload: { serviceId: shop.serviceId, providerId: shop.providerId, studyId: f.owner.studyId },
    }),
  },
  'POST /api/payments/sandbox/confirm': {
    expect: { ...every(404), anonymous: 401, pending: 403, owner: 'ok' },
    request: () => ({
      payload: {
        clientSecret: shop.ownerSecret,
        card: { number: '4000 0000 0000 0002', expiry: '12 / 34', cvc: '123', postalCode: '12345' },
      },
    }),
  },
  'POST /api/payments/sandbox/authenticate': {
    expect: { ...every(404), anonymous: 401, pending: 403, owner: 'ok' },
    request: () => ({ payload: { clientSecret: shop.ownerSecret, approve: false } }),
  },
  'POST /api/payments/complete': {
    expect: { ...every(404), anonymous: 401, pending: 403, owner: 'ok' },
    request: () => ({ payload: { paymentIntentId: shop.ownerIntentId } }),
  },
  // Fulfilment: a professional's orders are theirs only; nobody else finds them. The assigned
  // professional's order is in progress: accepting or declining it again conflicts, delivering it
  // (last, as it ends their read access) completes it.
  'GET /api/professional/orders': {
    expect: { ...every(404), anonymous: 401, pending: 403, assigned: 'ok' },
    mayReveal: ['assigned'],
  },
  ...Object.fromEntries(
    (
      [
        ['GET', '', 'ok'],
        ['POST', '/accept', 409],
        ['POST', '/decline', 409],
        ['PUT', '/report', 'ok'],
        ['POST', '/deliver', 'ok'],
      ] as const
    ).map(([method, tail, assigned]) => [
      `${method} /api/professional/orders/:id${tail}`,
      {
        expect: { ...every(404), anonymous: 401, pending: 403, assigned },
        mayReveal: ['assigned'],
        last: tail === '/deliver',
        params: (f) => ({ id: f.assignedOrderId }),
        request: () =>
          method === 'GET'
            ? {}
            : {
                payload: tail === '/decline' ? {} : { findings: 'f', impression: 'i', recommendation: '' },
              },
      } satisfies Entry,
    ]),
  ),
  // The owner's order has no report yet: found by nobody.
  'GET /api/orders/:id/report': {
    expect: { ...every(404), anonymous: 401, pending: 403 },
    params: () => ({ id: shop.ownerOrderId }),
  },
  'GET /api/orders/:id/data-need': { expect: OWNED, params: () => ({ id: shop.ownerOrderId }) },
  // The owner's order waits for payment, not for data (409).
  'POST /api/orders/:id/study': {
    expect: { ...OWNED, owner: 409 },
    params: () => ({ id: shop.ownerOrderId }),
    request: (_a, f) => ({ payload: { studyId: f.owner.studyId } }),
  },
  // Stripe's webhook: not served by the sandbox processor (its tests are in modules/orders).
  'POST /api/payments/webhook': {
    expect: every(404),
    credential: 'none',
    request: () => ({ headers: { 'stripe-signature': 't=1,v1=forged' }, payload: { id: 'evt_1' } }),
  },
  // An external AI vendor's report: without its provider's signature nobody learns the order exists.
  'POST /api/vendors/orders/:orderId/report': {
    expect: every(404),
    credential: 'none',
    params: (f) => ({ orderId: f.assignedOrderId }),
    request: () => ({
      headers: { 'x-mi-timestamp': String(Math.floor(Date.now() / 1000)), 'x-mi-signature': 'v1=forged' },
      payload: { findings: 'x', impression: 'y' },
    }),
  },

  // Study links: the owner's own; the public protocol answers no session, and a guessed manifest id,
  // file token, ticket or a session token in place of a link credential finds nothing (404).
  'POST /api/studies/links': {
    expect: OWNED,
    request: (_a, f) => ({
      payload: { studyIds: [f.owner.studyId], expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
    }),
  },
  'GET /api/studies/links': { expect: SELF, mayReveal: [] },
  'GET /api/studies/links/:id': { expect: OWNED, params: () => ({ id: linkFixture.shown }) },
  'PATCH /api/studies/links/:id': {
    expect: OWNED,
    params: () => ({ id: linkFixture.changed }),
    request: () => ({ payload: { paused: true } }),
  },
  'DELETE /api/studies/links/:id': { expect: OWNED, params: () => ({ id: linkFixture.changed }) },
  'OPTIONS /api/shl/*': { expect: PUBLIC, credential: 'none', params: () => ({ '*': 'm/x' }) },
  'POST /api/shl/m/:manifestId': {
    expect: every(404),
    credential: 'none',
    params: () => ({ manifestId: 'A'.repeat(43) }),
    request: () => ({ payload: { recipient: 'Matrix' } }),
  },
  'GET /api/shl/m/:manifestId': {
    expect: every(404),
    credential: 'none',
    params: () => ({ manifestId: 'A'.repeat(43) }),
    request: () => ({ query: { recipient: 'Matrix' } }),
  },
  'GET /api/shl/f/:token': {
    expect: every(404),
    credential: 'none',
    params: () => ({ token: 'A'.repeat(43) }),
  },
  'GET /api/shl/d/:ticket': {
    expect: every(404),
    credential: 'none',
    params: () => ({ ticket: 'A'.repeat(43) }),
  },
  'POST /api/shl/viewer': {
    expect: every(404),
    request: (_a, f) => ({ payload: { studyId: f.owner.studyId } }),
  },
  'POST /api/shl/download': {
    expect: every(404),
    request: (_a, f) => ({ payload: { studyId: f.owner.studyId } }),
  },

  // FHIR R4: the capability statement is public; reads go through the one access check like
  // DICOMweb (a stranger's search is empty, their read a 404); every write is 405, before any sign-in.
  'GET /fhir/R4/metadata': { expect: PUBLIC, credential: 'none' },
  'GET /fhir/R4/:type': {
    expect: SELF,
    mayReveal: READERS,
    params: () => ({ type: 'ImagingStudy' }),
  },
  'GET /fhir/R4/:type/:id': readable({ params: (f) => ({ type: 'ImagingStudy', id: f.owner.studyId }) }),
  'POST /fhir/R4': { expect: every(405) },
  'POST /fhir/R4/*': { expect: every(405), params: () => ({ '*': 'ImagingStudy' }) },
  'PUT /fhir/R4': { expect: every(405) },
  'PUT /fhir/R4/*': { expect: every(405), params: () => ({ '*': 'ImagingStudy' }) },
  'PATCH /fhir/R4': { expect: every(405) },
  'PATCH /fhir/R4/*': { expect: every(405), params: () => ({ '*': 'ImagingStudy' }) },
  'DELETE /fhir/R4': { expect: every(405) },
  'DELETE /fhir/R4/*': { expect: every(405), params: () => ({ '*': 'ImagingStudy' }) },

  // The help centre (signed-in users) and Admin → Help articles.
  'GET /api/kb': { expect: SELF, request: () => ({ query: { q: 'upload', page: '1' } }) },
  'GET /api/kb/categories': { expect: SELF },
  'GET /api/kb/counts': { expect: SELF },
  'GET /api/kb/images/:name': { expect: SELF, params: () => ({ name: 'upload.webp' }) },
  'GET /api/kb/:id': { expect: SELF, params: () => ({ id: helpFixture.published }) },
  'GET /api/admin/kb': { expect: ADMIN },
  'GET /api/admin/kb/:id': { expect: ADMIN, params: () => ({ id: helpFixture.managed }) },
  'POST /api/admin/kb': { expect: ADMIN, request: () => ({ payload: helpFixture.input }) },
  'PUT /api/admin/kb/:id': {
    expect: ADMIN,
    params: () => ({ id: helpFixture.managed }),
    request: () => ({ payload: helpFixture.input }),
  },
  'PATCH /api/admin/kb/:id': {
    expect: ADMIN,
    params: () => ({ id: helpFixture.managed }),
    request: () => ({ payload: { published: true, featured: true } }),
  },
  'DELETE /api/admin/kb/:id': { expect: ADMIN, params: () => ({ id: helpFixture.managed }) },
  'POST /api/admin/kb/images': {
    expect: ADMIN,
    request: () => ({ payload: helpFixture.png, headers: { 'content-type': 'image/png' } }),
  },

  // DICOMweb for standard clients: the app session, all of the caller's own studies.
  ...dicomwebTable(SELF, READ),

  // The built web app (a stand-in build here: its index.html and one asset).
  'GET /index.html': { expect: PUBLIC, credential: 'none' },
  'GET /assets/app.js': { expect: PUBLIC, credential: 'none' },
};

/** The viewer origin's routes. Its credential is a viewer grant; the app session opens nothing here. */
const VIEWER: Record<string, Entry> = {
  [`POST ${DICOMWEB_ROOT}/session`]: { expect: GRANT_SELF },
  ...dicomwebTable(GRANT_SELF, GRANT_STUDY),
  'GET /app-config.js': { expect: PUBLIC, credential: 'none' },
  'GET /init-service-worker.js': { expect: PUBLIC, credential: 'none' },
  'GET /*': { expect: PUBLIC, credential: 'none', params: () => ({ '*': 'app.js' }) },
};

// --- Helpers ------------------------------------------------------------------------------------

let ipCounter = 0;
/** Each call from its own address, so per-address rate limits never answer in place of the route. */
const freshIp = () => `10.9.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

async function login(email: string, password = strongPassword) {
  const res = await mainApp.inject({
    method: 'POST',
    url: '/api/auth/login',
    remoteAddress: freshIp(),
    payload: { email, password, captcha: await ctx.captcha() },
  });
  if (res.statusCode !== 200) throw new Error(`login of ${email} failed: ${res.statusCode} ${res.body}`);
  return res.json().data as { id: string; authToken: string };
}

/**
 * The owner buys Expert Review of their study with the sandbox's succeeding card from the
 * professional's own published profile, and the professional accepts it: the order is in
 * progress, so they may read the study. With `deliver`, they deliver it at once (completed).
 */
async function assignOrder(
  owner: Account,
  professional: Account,
  providerId: string,
  studyId: string,
  deliver = false,
): Promise<string> {
  const auth = { authorization: `Bearer ${owner.token}` };
  const catalogue = (await mainApp.inject({ url: '/api/services', headers: auth })).json() as Array<{
    id: string;
    name: string;
    providers: Array<{ id: string; name: string }>;
  }>;
  const expert = catalogue.find((s) => s.name === 'Expert Review');
  if (!expert?.providers.some((p) => p.id === providerId))
    throw new Error('the professional’s Expert Review is not sold');
  const intent = await mainApp.inject({
    method: 'POST',
    url: '/api/payments/create-payment-intent',
    headers: auth,
    payload: { serviceId: expert.id, providerId, studyId },
  });
  if (intent.statusCode !== 200) throw new Error(`payment intent failed: ${intent.body}`);
  const paid = await mainApp.inject({
    method: 'POST',
    url: '/api/payments/sandbox/confirm',
    headers: auth,
    payload: {
      clientSecret: intent.json().clientSecret,
      card: { number: '4242 4242 4242 4242', expiry: '12 / 34', cvc: '123', postalCode: '12345' },
    },
  });
  if (paid.statusCode !== 200) throw new Error(`payment failed: ${paid.body}`);
  const orderId = paid.json().purchase.id as string;
  const asProfessional = { authorization: `Bearer ${professional.token}` };
  const accepted = await mainApp.inject({
    method: 'POST',
    url: `/api/professional/orders/${orderId}/accept`,
    headers: asProfessional,
  });
  if (accepted.statusCode !== 200) throw new Error(`accept failed: ${accepted.body}`);
  if (deliver) {
    const delivered = await mainApp.inject({
      method: 'POST',
      url: `/api/professional/orders/${orderId}/deliver`,
      headers: asProfessional,
      payload: { findings: 'No acute findings.', impression: 'Normal study.', recommendation: '' },
    });
    if (delivered.statusCode !== 200) throw new Error(`delivery failed: ${delivered.body}`);
  }
  return orderId;
}

/** A new session of the account, for a call that ends it. */
/**
 * Security settings need a proof of identity from the last 5 minutes (modules/auth/fresh-proof.ts),
 * and the walk may take longer: the actor confirms with its password just before the call.
 */
async function freshProof(actor: Actor, f: Fixtures): Promise<Partial<InjectOptions>> {
  if (actor === 'anonymous') return {};
  const account = f[actor];
  await mainApp.inject({
    method: 'POST',
    url: '/api/auth/reauthenticate',
    remoteAddress: freshIp(),
    headers: { authorization: `Bearer ${account.token}` },
    payload: { password: account.password },
  });
  return {};
}

async function spareToken(account: Account) {
  return (await login(account.email, account.password)).authToken;
}

/** Jobs the calls queued, waited for before the database goes away. */
const jobs = new Set<string>();
function trackJob(res: LightMyRequestResponse): undefined {
  const id: unknown = res.json().jobId;
  if (typeof id === 'string') jobs.add(id);
}

const routeKey = (r: { method: string; url: string }) => `${r.method} ${r.url}`;

/** The entry of a route; a HEAD route without its own entry is the GET's automatic twin. */
function entryOf(table: Record<string, Entry>, r: { method: string; url: string }): Entry | undefined {
  return table[routeKey(r)] ?? (r.method === 'HEAD' ? table[`GET ${r.url}`] : undefined);
}

function routesOf(app: FastifyInstance) {
  const routes = registry.get(app);
  if (!routes) throw new Error('the app was not created through the recording Fastify factory');
  return routes;
}

/** The number of route/method pairs Fastify's own listing shows, to check the recording is complete. */
function printedRouteCount(app: FastifyInstance): number {
  let n = 0;
  for (const m of app.printRoutes({ commonPrefix: false }).matchAll(/\(([A-Z, ]+)\)\s*$/gm))
    n += m[1]!.split(',').length;
  return n;
}

function fillPath(url: string, params: Record<string, string>): string {
  return url.replace(/:(\w+)|\*/g, (whole, name: string | undefined) => {
    const value = params[name ?? '*'];
    if (value === undefined) throw new Error(`no value for ${whole} in ${url}; add it to the entry's params`);
    return value;
  });
}

function defaultParams(f: Fixtures): Record<string, string> {
  return {
    userId: f.owner.id,
    studyId: f.owner.studyId,
    study: f.owner.studyUid,
    series: f.owner.seriesUid,
    instance: f.owner.sopUid,
    frames: '1',
    frame: '1',
    tag: '7FE00010',
  };
}

function credentialHeaders(app: 'main' | 'viewer', entry: Entry, actor: Actor, f: Fixtures) {
  if (actor === 'anonymous' || entry.credential === 'none') return {};
  if (app === 'viewer') {
    const grant = f.grants[actor];
    // No grant (admin, pending professional): the app session is all they have, and it is not one.
    return grant ?? { authorization: `Bearer ${f[actor].token}` };
  }
  if (entry.credential === 'upload') {
    const token = f.uploadTokens[actor] ?? f[actor].token;
    return { authorization: `Bearer ${token}` };
  }
  return { authorization: `Bearer ${f[actor].token}` };
}

function matches(outcome: Outcome, status: number): boolean {
  if (outcome === 'ok') return status >= 200 && status < 300;
  return [outcome].flat().includes(status);
}

/** Strings that identify the owner: none may reach another actor. */
function ownerMarks(f: Fixtures): string[] {
  return [
    f.owner.id,
    f.owner.email,
    f.owner.studyId,
    f.owner.studyUid,
    f.owner.seriesUid,
    f.owner.sopUid,
    f.throwawayStudyId,
    f.notificationId,
  ];
}

// --- Setup --------------------------------------------------------------------------------------

beforeAll(async () => {
  ctx = await createTestContext();
  // Stand-ins for the built web app and the OHIF build, so their routes are registered as in production.
  const webDir = path.join(ctx.dataDir, 'web-dist');
  const ohifDir = path.join(ctx.dataDir, 'ohif');
  await mkdir(path.join(webDir, 'assets'), { recursive: true });
  await mkdir(ohifDir, { recursive: true });
  await writeFile(path.join(webDir, 'index.html'), '<!doctype html><title>app</title>');
  await writeFile(path.join(webDir, 'assets', 'app.js'), 'export {};\n');
  await writeFile(path.join(ohifDir, 'index.html'), '<!doctype html><title>viewer</title>');
  await writeFile(path.join(ohifDir, 'app.js'), 'export {};\n');
  await writeFile(path.join(ctx.dataDir, 'app-config.js'), 'window.config = {};\n');

  mainApp = await buildApp(ctx.services, { logRequests: false, webDistDir: webDir });
  await mainApp.ready();
  viewerApp = await buildViewerApp(ctx.services, {
    logRequests: false,
    ohifDir,
    appConfigFile: path.join(ctx.dataDir, 'app-config.js'),
  });
  await viewerApp.ready();

  const patient = async (email: string): Promise<Account> => ({
    ...(await newPatient(ctx, email)),
    email,
    password: strongPassword,
  });
  const owner = await patient('owner@example.com');
  const stranger = await patient('stranger@example.com');
  const loginTarget = await patient('login-target@example.com');
  const recipient = await patient('recipient@example.com');
  const revoked = await patient('revoked@example.com');
  // A verified professional who published a directory profile and offers Expert Review; they
  // accept the owner's order (below).
  const assignedPro = await offeringProfessional(ctx, 'assigned@example.com', {
    name: 'Dana Scully',
    hospital: 'Georgetown Hospital',
  });
  const assigned = {
    id: assignedPro.id,
    email: assignedPro.email,
    password: strongPassword,
    token: assignedPro.token,
  };
  const assignedProviderId = assignedPro.providerId;
  // Shares reach confirmed emails only, and only while the owner allows sharing.
  await ctx.services.database.db
    .update(users)
    .set({ emailVerifiedAt: new Date() })
    .where(inArray(users.id, [recipient.id, revoked.id]));
  await ctx.services.database.db.update(users).set({ shareMedicalData: true }).where(eq(users.id, owner.id));

  // The admin as a first start creates it, with the one-time password it prints.
  let printed = '';
  await ensureAdmin({
    ...ctx.services,
    log: { warn: (msg: string) => (printed = msg) } as unknown as Services['log'],
  });
  const adminPassword = /one-time password: (\S+)/.exec(printed)?.[1];
  if (!adminPassword) throw new Error('ensureAdmin printed no password');
  const adminEmail = ctx.services.config.adminEmail;
  // It signs in once, to choose the admin's own (test/modules/auth/one-time-password.test.ts).
  const firstLogin = await login(adminEmail, adminPassword);
  const changed = await mainApp.inject({
    method: 'POST',
    url: '/api/auth/password',
    headers: { authorization: `Bearer ${firstLogin.authToken}` },
    payload: { currentPassword: adminPassword, newPassword: strongPassword },
  });
  if (changed.statusCode !== 200) throw new Error(`admin password change failed: ${changed.body}`);
  const adminLogin = await login(adminEmail);
  const admin = {
    id: adminLogin.id,
    email: adminEmail,
    password: strongPassword,
    token: adminLogin.authToken,
  };

  const apply = async (email: string) => {
    const res = await registerUser(ctx, email, { extra: professional(email) });
    if (res.statusCode !== 201) throw new Error(`registration failed: ${res.body}`);
    return res.json().data.id as string;
  };
  await apply('pending@example.com');
  const pendingLogin = await login('pending@example.com');
  const pending = {
    id: pendingLogin.id,
    email: 'pending@example.com',
    password: strongPassword,
    token: pendingLogin.authToken,
  };
  const applicants = {
    approve: await apply('applicant-1@example.com'),
    reject: await apply('applicant-2@example.com'),
  };

  const uids = { studyUid: uid(), seriesUid: uid(), sopUid: uid() };
  const [studyId] = await ingestFiles(ctx, owner.id, [makeDicom(uids)]);
  const [throwawayStudyId] = await ingestFiles(ctx, owner.id, [
    makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() }),
  ]);
  const [transferStudyId] = await ingestFiles(ctx, owner.id, [
    makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() }),
  ]);
  const [ratedStudyId] = await ingestFiles(ctx, owner.id, [
    makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() }),
  ]);
  const [strangerStudyId] = await ingestFiles(ctx, stranger.id, [
    makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() }),
  ]);
  const [notification] = await ctx.services.database.db
    .select({ id: notifications.id })
    .from(notifications)
    .where(eq(notifications.userId, owner.id))
    .limit(1);
  if (!studyId || !throwawayStudyId || !transferStudyId || !ratedStudyId || !strangerStudyId || !notification)
    throw new Error('setup failed');
  const share = async (email: string) => {
    const res = await mainApp.inject({
      method: 'POST',
      url: '/api/users/shares',
      headers: { authorization: `Bearer ${owner.token}` },
      payload: { email, studyId },
    });
    if (res.statusCode !== 201) throw new Error(`share failed: ${res.statusCode} ${res.body}`);
    return res.json().data.id as string;
  };
  await share(recipient.email);
  const revokedShareId = await share(revoked.email);
  const throwawayShareId = await share('throwaway-share@example.com');
  const pendingShareId = await share('nobody-yet@example.com');

  const uploadToken = async (account: Account) => {
    const res = await mainApp.inject({
      url: '/api/storage/token',
      headers: { authorization: `Bearer ${account.token}` },
    });
    if (res.statusCode !== 200) throw new Error(`no upload token: ${res.statusCode}`);
    return res.json().accessToken as string;
  };
  const uploadTokens = {
    owner: await uploadToken(owner),
    stranger: await uploadToken(stranger),
    admin: await uploadToken(admin),
    recipient: await uploadToken(recipient),
    assigned: await uploadToken(assigned),
    revoked: await uploadToken(revoked),
  };
  // The owner's uploads: one finished (a real study archive), one left open.
  const upload = async (data: Buffer | null, size: number) => {
    const objectName = `${owner.id}/${randomUUID()}/study.zip`;
    const auth = { authorization: `Bearer ${uploadTokens.owner}` };
    const created = await mainApp.inject({
      method: 'POST',
      url: '/api/uploads',
      headers: {
        ...auth,
        ...tus,
        'upload-length': String(size),
        'upload-metadata': `objectName ${b64(objectName)}`,
      },
    });
    if (created.statusCode !== 201) throw new Error(`upload creation failed: ${created.statusCode}`);
    if (data) {
      const patched = await mainApp.inject({
        method: 'PATCH',
        url: `/api/uploads/${objectName}`,
        headers: { ...auth, ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
        payload: data,
      });
      if (patched.statusCode !== 204) throw new Error(`upload failed: ${patched.statusCode}`);
    }
    return objectName;
  };
  const zip = buildZip([
    { name: 'IMG0001.dcm', data: makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() }) },
  ]);
  const completeUpload = await upload(zip, zip.length);
  const openUpload = await upload(null, 1024);

  // Viewer credentials: the owner's for the owner's study, the stranger's for the stranger's own.
  const grantFor = async (account: Account, study: string) => {
    const res = await mainApp.inject({
      url: `/api/dicom/viewer/${study}`,
      headers: { authorization: `Bearer ${account.token}` },
    });
    const token = new URL(res.json().url as string).hash.replace('#grant=', '');
    const bind = await viewerApp.inject({
      method: 'POST',
      url: `${DICOMWEB_ROOT}/session`,
      headers: { authorization: `Bearer ${token}` },
    });
    const cookie = bind.cookies[0];
    if (bind.statusCode !== 204 || !cookie) throw new Error(`binding failed: ${bind.statusCode}`);
    return { authorization: `Bearer ${token}`, cookie: `${cookie.name}=${cookie.value}` };
  };
  const assignedOrderId = await assignOrder(owner, assigned, assignedProviderId, studyId);
  // A completed order of the owner's, which they rated.
  const ratedOrderId = await assignOrder(owner, assigned, assignedProviderId, ratedStudyId, true);
  const rated = await mainApp.inject({
    method: 'PUT',
    url: `/api/orders/${ratedOrderId}/rating`,
    headers: { authorization: `Bearer ${owner.token}` },
    payload: { stars: 5, comment: 'Thorough report.' },
  });
  if (rated.statusCode !== 200) throw new Error(`rating failed: ${rated.statusCode} ${rated.body}`);
  const grants = {
    owner: await grantFor(owner, studyId),
    stranger: await grantFor(stranger, strangerStudyId),
    recipient: await grantFor(recipient, studyId),
    assigned: await grantFor(assigned, studyId),
    // Issued while the share was live; the revocation below must end what it opens.
    revoked: await grantFor(revoked, studyId),
  };
  const revokedRes = await mainApp.inject({
    method: 'DELETE',
    url: `/api/users/shares/${revokedShareId}`,
    headers: { authorization: `Bearer ${owner.token}` },
  });
  if (revokedRes.statusCode !== 200) throw new Error(`revoke failed: ${revokedRes.statusCode}`);

  const spare = await spareToken(owner);
  const sessions = await mainApp.inject({
    url: '/api/auth/sessions',
    headers: { authorization: `Bearer ${spare}` },
  });
  const spareSessionId = (sessions.json().data as Array<{ id: string; current: boolean }>).find(
    (s) => s.current,
  )!.id;

  fixtures = {
    owner: { ...owner, studyId, ...uids },
    stranger,
    recipient,
    revoked,
    assigned,
    assignedProviderId,
    assignedOrderId,
    ratedOrderId,
    throwawayShareId,
    pendingShareId,
    transferStudyId,
    providerId: assignedProviderId,
    admin,
    pending,
    loginTarget,
    throwawayStudyId,
    notificationId: notification.id,
    completeUpload,
    openUpload,
    spareSessionId,
    applicants,
    uploadTokens,
    grants,
  };
  // The embedded database alone took 32 s to start on two busy cores; the actors, studies, a
  // published profile and two orders (one delivered and rated) come on top.
}, 120_000);

/**
 * Organisations an admin adds for the provider routes (one users add to their network, one the
 * Admin → Providers routes change), and an account one may be linked to.
 */
const directory = {
  added: '',
  managed: '',
  managedEmail: 'matrix-managed@example.org',
  linkableEmail: 'linkable-professional@example.com',
};
/** The admin form of an organisation. */
const organisation = (name: string, email: string) => ({
  name,
  specialty: 'Radiology',
  description: 'Teleradiology reads for the authorization matrix.',
  yearsOfExperience: '12',
  credentials: ['Accredited teleradiology group'],
  location: { street: '', city: 'Leeds', state: '', zipCode: '', country: 'United Kingdom' },
  academicProfile: { rank: '', numberOfPublications: 0 },
  contactInformation: { email, mobile: '', website: '' },
  workingHours: { weekdays: '08:00-18:00', weekends: 'Closed' },
});
/** POST /api/admin/providers as the admin; the new organisation's id. */
async function addOrganisation(name: string, email: string): Promise<string> {
  const res = await mainApp.inject({
    method: 'POST',
    url: '/api/admin/providers',
    headers: { authorization: `Bearer ${fixtures.admin.token}` },
    payload: organisation(name, email),
  });
  if (res.statusCode !== 201) throw new Error(`organisation not added: ${res.statusCode} ${res.body}`);
  return res.json().data.id as string;
}
/** PUT /api/admin/providers/:id/link as the admin. */
async function linkOrganisation(id: string, email: string): Promise<void> {
  const res = await mainApp.inject({
    method: 'PUT',
    url: `/api/admin/providers/${id}/link`,
    headers: { authorization: `Bearer ${fixtures.admin.token}` },
    payload: { email },
  });
  if (res.statusCode !== 200) throw new Error(`organisation not linked: ${res.statusCode} ${res.body}`);
}
beforeAll(async () => {
  directory.added = await addOrganisation('Matrix Network Clinic', 'matrix-network@example.org');
  directory.managed = await addOrganisation('Matrix Managed Clinic', directory.managedEmail);
  // Only an approved professional who confirmed the email may be linked.
  const res = await registerUser(ctx, directory.linkableEmail, {
    extra: professional(directory.linkableEmail),
    remoteAddress: freshIp(),
  });
  if (res.statusCode !== 201) throw new Error(`registration failed: ${res.body}`);
  await ctx.services.users.update(res.json().data.id as string, {
    accountStatus: 'active',
    emailVerifiedAt: new Date(),
  });
});

/** Two study links of the owner's: one read back, one paused and then revoked. */
const linkFixture = { shown: '', changed: '' };
beforeAll(async () => {
  for (const key of ['shown', 'changed'] as const) {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/studies/links',
      headers: { authorization: `Bearer ${fixtures.owner.token}` },
      payload: {
        studyIds: [fixtures.owner.studyId],
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    if (res.statusCode !== 201) throw new Error(`link fixture: ${res.statusCode} ${res.body}`);
    linkFixture[key] = res.json().id as string;
  }
});

/** A ready export of the owner's study ('Export my data'). */
const exportFixture = { id: '', name: '' };
beforeAll(async () => {
  const auth = { authorization: `Bearer ${fixtures.owner.token}` };
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/exports',
    headers: auth,
    payload: { studyIds: [fixtures.owner.studyId] },
  });
  if (res.statusCode !== 202) throw new Error(`export fixture: ${res.statusCode} ${res.body}`);
  exportFixture.id = res.json().id as string;
  for (let i = 0; i < 300 && !exportFixture.name; i++) {
    const got = (await ctx.app.inject({ url: `/api/exports/${exportFixture.id}`, headers: auth })).json();
    if (got.status === 'ready') exportFixture.name = got.files[0].name as string;
    else if (got.status === 'failed') throw new Error(`export fixture failed: ${got.error}`);
    else await new Promise((r) => setTimeout(r, 100));
  }
});

/** A published help article, one the admin routes edit and delete, and a picture to upload. */
const helpFixture = {
  published: '',
  managed: '',
  png: Buffer.alloc(0) as Buffer,
  input: {
    title: 'Matrix article',
    description: 'Written by the authorization matrix.',
    content: '<p>Matrix</p>',
    category: 'Getting Started',
    featured: false,
    published: false,
  },
};
beforeAll(async () => {
  const meta = { requestId: 'matrix', ip: '127.0.0.1' };
  helpFixture.published = (await ctx.services.help.list({ page: 1, limit: 1 })).data[0]!._id;
  const adminActor = (await ctx.services.auth.authenticate(fixtures.admin.token, meta))!;
  helpFixture.managed = (await ctx.services.help.admin.create(adminActor, helpFixture.input, meta))._id;
  helpFixture.png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
    .png()
    .toBuffer();
});

/**
 * A service of the matrix's own with one offer, so Admin → Services changes touch no other route's.
 * Its offers are by organisations linked to verified professionals (someone reads what they sell).
 */
const catalogueFixture = {
  serviceId: '',
  offerProviderId: '',
  newProviderId: '',
  input: {
    name: 'Matrix analysis',
    scope: 'matrix_scope',
    description: 'Written by the authorization matrix.',
    typicalTime: '1 day',
    requiredData: ['DICOM images'],
    type: 'Expert' as const,
    supportedModalities: ['CT'],
  },
};
beforeAll(async () => {
  const meta = { requestId: 'matrix', ip: '127.0.0.1' };
  const adminActor = (await ctx.services.auth.authenticate(fixtures.admin.token, meta))!;
  catalogueFixture.offerProviderId = await addOrganisation('Matrix Offer Clinic', 'matrix-offer@example.org');
  catalogueFixture.newProviderId = await addOrganisation('Matrix New Clinic', 'matrix-new@example.org');
  for (const [id, email] of [
    [catalogueFixture.offerProviderId, 'matrix-offer-reader@example.com'],
    [catalogueFixture.newProviderId, 'matrix-new-reader@example.com'],
  ] as const) {
    await verifiedProfessional(ctx, email, { name: 'Matrix Reader' });
    await linkOrganisation(id, email);
  }
  const created = await ctx.services.catalogueAdmin.create(adminActor, catalogueFixture.input, meta);
  catalogueFixture.serviceId = created.id;
  await ctx.services.catalogueAdmin.addOffer(
    adminActor,
    created.id,
    { providerId: catalogueFixture.offerProviderId, price: 10 },
    meta,
  );
});

/** The offer the assigned professional's offer routes change (and withdraw, last): not the one the owner bought. */
const professionalOffer = {
  serviceId: '',
  terms: { price: 239.5, turnaround: '3-5 days', modalities: ['MRI'] },
};
beforeAll(async () => {
  const offers = (
    await mainApp.inject({
      url: '/api/professional/offers',
      headers: { authorization: `Bearer ${fixtures.assigned.token}` },
    })
  ).json() as Array<{ serviceId: string; serviceName: string; offer: { status: string } | null }>;
  const complete = offers.find((o) => o.serviceName === 'Complete Analysis Package');
  if (complete?.offer?.status !== 'live') throw new Error('the assigned professional offers no package');
  professionalOffer.serviceId = complete.serviceId;
});

/** An offer, an unpaid order and an unconfirmed payment of the owner's, for the order and payment routes. */
const shop = { serviceId: '', providerId: '', ownerOrderId: '', ownerSecret: '', ownerIntentId: '' };
beforeAll(async () => {
  const [service] = await ctx.services.analysisServices.list(fixtures.owner.id);
  shop.serviceId = service!.id;
  shop.providerId = service!.providers[0]!.id;
  const owner = { id: fixtures.owner.id, role: 'patient', email: fixtures.owner.email };
  const meta = { requestId: 'matrix', ip: '127.0.0.1' };
  const order = await ctx.services.orders.createOrder(
    owner,
    { serviceId: shop.serviceId, providerId: shop.providerId, studyId: fixtures.owner.studyId },
    meta,
  );
  shop.ownerOrderId = order.id;
  const intent = await ctx.services.orders.createPaymentIntent(
    owner,
    { serviceId: shop.serviceId, providerId: shop.providerId, studyId: fixtures.owner.studyId },
    meta,
  );
  shop.ownerSecret = intent.clientSecret;
  shop.ownerIntentId = intent.paymentIntentId;
});

afterAll(async () => {
  for (const id of jobs) await jobSettled(ctx, id).catch(() => undefined);
  await viewerApp?.close();
  await mainApp?.close();
  await ctx?.close();
});

// --- The matrix ---------------------------------------------------------------------------------

describe('authorization matrix (every route × owner, share recipient, revoked recipient, assigned professional, stranger, anonymous, admin, pending professional)', () => {
  const apps = () =>
    [
      { name: 'main' as const, app: mainApp, table: MAIN },
      { name: 'viewer' as const, app: viewerApp, table: VIEWER },
    ] as const;

  it('has an expectation for every registered route, and no entry for a route that is gone', () => {
    const problems: string[] = [];
    for (const { name, app, table } of apps()) {
      const routes = routesOf(app);
      expect(routes.length, `${name}: routes seen by onRoute vs printRoutes`).toBe(printedRouteCount(app));
      for (const r of routes) {
        if (!entryOf(table, r))
          problems.push(
            `${name} app: route "${routeKey(r)}" has no expectation. Add an entry to ${name === 'main' ? 'MAIN' : 'VIEWER'} in apps/server/test/system/authorization-matrix.test.ts saying which actors may get a 2xx (and what the others get).`,
          );
      }
      const registered = new Set(routes.map(routeKey));
      for (const key of Object.keys(table))
        if (!registered.has(key))
          problems.push(`${name} app: entry "${key}" names no registered route; remove it.`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('lets a patient rate only their own completed order', async () => {
    const f = fixtures;
    const rate = (who: Account, orderId: string) =>
      mainApp.inject({
        method: 'PUT',
        url: `/api/orders/${orderId}/rating`,
        remoteAddress: freshIp(),
        headers: { authorization: `Bearer ${who.token}` },
        payload: { stars: 1, comment: 'Not mine to rate.' },
      });
    // The owner's orders that are not completed: in progress with the professional, awaiting payment.
    for (const orderId of [f.assignedOrderId, shop.ownerOrderId])
      expect((await rate(f.owner, orderId)).statusCode, orderId).toBe(404);
    // The owner's completed order: nobody else rates it, not the professional who delivered it nor an admin.
    for (const who of [f.stranger, f.recipient, f.revoked, f.assigned, f.admin])
      expect((await rate(who, f.ratedOrderId)).statusCode, who.email).toBe(404);
    const ratings = await mainApp.inject({
      url: `/api/providers/${f.assignedProviderId}/ratings`,
      headers: { authorization: `Bearer ${f.stranger.token}` },
    });
    expect(ratings.json()).toMatchObject({
      rating: 5,
      ratingCount: 1,
      data: [{ stars: 5, comment: 'Thorough report.', serviceName: 'Expert Review' }],
    });
  });

  // About 1,300 requests: 17 s alone, over the default 30 s beside the rest of the suite on two cores.
  it('answers each actor as the table says: no unexpected 2xx, no 5xx, nothing of the owner leaks', async () => {
    const f = fixtures;
    const marks = ownerMarks(f);
    const failures: string[] = [];
    const histogram = new Map<number, number>();
    const covered = { main: 0, viewer: 0 };
    let calls = 0;

    type Planned = {
      name: 'main' | 'viewer';
      app: FastifyInstance;
      route: { method: string; url: string };
      entry: Entry;
    };
    const first: Planned[] = [];
    const last: Planned[] = [];
    for (const { name, app, table } of apps()) {
      for (const route of routesOf(app)) {
        const entry = entryOf(table, route);
        if (!entry) continue; // reported by the test above
        covered[name]++;
        (entry.last || route.method === 'DELETE' ? last : first).push({ name, app, route, entry });
      }
    }

    for (const { name, app, route, entry } of [...first, ...last]) {
      let url: string;
      try {
        url = fillPath(route.url, { ...defaultParams(f), ...entry.params?.(f) });
      } catch (err) {
        failures.push(`${name} ${routeKey(route)}: ${(err as Error).message}`);
        continue;
      }
      // The owner goes last, so a stranger is always refused something that still exists.
      for (const actor of ACTORS) {
        const extra = (await entry.request?.(actor, f)) ?? {};
        const res = await app.inject({
          method: route.method as InjectOptions['method'],
          url,
          remoteAddress: freshIp(),
          ...extra,
          headers: { ...credentialHeaders(name, entry, actor, f), ...extra.headers },
        });
        calls++;
        histogram.set(res.statusCode, (histogram.get(res.statusCode) ?? 0) + 1);
        const expected = entry.expect[actor];
        const where = `${name} ${route.method} ${url} as ${actor}`;
        if (res.statusCode >= 500) {
          failures.push(`${where}: ${res.statusCode} (server error) ${res.body.slice(0, 200)}`);
          continue;
        }
        if (!matches(expected, res.statusCode)) {
          failures.push(
            `${where}: got ${res.statusCode}, expected ${expected === 'ok' ? '2xx' : String(expected)} ${res.body.slice(0, 200)}`,
          );
          continue;
        }
        if (res.statusCode < 300 && actor !== 'owner' && !entry.mayReveal?.includes(actor)) {
          const leaked = marks.filter((m) => res.body.includes(m));
          if (leaked.length) failures.push(`${where}: the answer mentions the owner's ${leaked.join(', ')}`);
        }
        {
          const wrong = entry.check?.(res, actor, f);
          if (wrong) failures.push(`${where}: ${wrong}`);
        }
      }
    }

    console.log(
      [
        'Authorization matrix:',
        `  routes covered: main app ${covered.main}, viewer app ${covered.viewer}`,
        `  actors: ${ACTORS.length} (${ACTORS.join(', ')})`,
        `  calls: ${calls}`,
        `  statuses: ${[...histogram.entries()]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}×${n}`)
          .join(', ')}`,
      ].join('\n'),
    );
    expect(failures, failures.join('\n')).toEqual([]);
  }, 180_000);
});
