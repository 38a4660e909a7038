import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { Config } from './config';
import { openDatabase, type Database } from './db/client';
import { startJobQueue, type JobDefinition } from './jobs/queue';
import { createObjectStorage } from './ports/storage/index';
import { createAccessModule, type Principal, type StudyRow } from './modules/access';
import { createAccountsModule } from './modules/accounts';
import { createAdminModule, createRecentSignInRule } from './modules/admin';
import { createAnalysisModule } from './modules/analysis';
import { createAuditModule } from './modules/audit';
import { createAuthModule, createSessionCache } from './modules/auth';
import { createDeidentifyModule } from './modules/deidentify';
import { createDemoModule } from './modules/demo';
import { createDicomwebModule, sessionPrincipal } from './modules/dicomweb';
import { createExportsModule } from './modules/exports';
import { createFhirModule } from './modules/fhir';
import { createFulfilmentModule } from './modules/fulfilment';
import { createHealthModule } from './modules/health';
import { createHelpModule } from './modules/help';
import { ArchivePrescan, createIngestModule, uploadZipLimits } from './modules/ingest';
import { createInvitationsModule } from './modules/invitations';
import { createJobsModule } from './modules/jobs';
import { createLinksModule } from './modules/links';
import { createMailModule } from './modules/mail';
import { createNotificationsModule } from './modules/notifications';
import { createOrdersModule } from './modules/orders';
import { createProvidersModule } from './modules/providers';
import { createRateLimitModule } from './modules/rate-limit';
import { createRatingsModule } from './modules/ratings';
import { createServicesModule } from './modules/services';
import { createSharingModule } from './modules/sharing';
import { createStudiesModule } from './modules/studies';
import { createThumbnailsModule } from './modules/thumbnails';
import { createUploadsModule } from './modules/uploads';
import { createUsersModule } from './modules/users';
import { createVendorsModule } from './modules/vendors';
import { createViewerModule } from './modules/viewer';

export interface ServiceOptions {
  /** Run job handlers in this process (`serve` and `worker`; not `migrate`). */
  runWorkers: boolean;
  /** Tests: a throwaway in-memory PGlite instead of DATA_DIR. */
  inMemoryDatabase?: boolean;
  /** With inMemoryDatabase: start from this copy of a migrated database (tests; see db/client.ts). */
  databaseImage?: Blob;
  /** Tests: a movable clock for expiries (codes, tokens, sessions). */
  now?: () => Date;
}

/** What a module hands the root besides its services: its routes, jobs and what to close. */
interface ModuleParts {
  /** Route plugins under /api, given the app's config (http/app.ts); mounts have their own prefix. */
  routes?: (config: Config) => FastifyPluginAsyncZod[];
  mounts?: () => Array<{ prefix: string; plugin: FastifyPluginAsyncZod }>;
  jobs?: readonly JobDefinition[];
  close?: () => Promise<void>;
}

/** The ports every module may use: database, change feed, storage, job queue, session cache, clock. */
async function openKernel(database: Database, config: Config, log: Logger, opts: ServiceOptions) {
  await database.migrate();
  // Change notifications keep in-memory caches (sessions, studies lists) in step across processes.
  const changes = await database.openChangeFeed({
    onError: (err) => log.warn({ err }, 'change notifications interrupted; caches dropped until reconnected'),
  });
  try {
    const storage = createObjectStorage({ dataDir: config.dataDir, s3: config.s3 });
    // What a killed process was writing. On the embedded database this is the only process, so every
    // temp file is a leftover; with PostgreSQL others may share the directory, so only stale ones go.
    const swept = await storage.sweepStaging?.(database.kind === 'pglite' ? 0 : 10 * 60_000);
    if (swept) log.info({ files: swept }, 'removed temp files left by an interrupted write');
    const queue = await startJobQueue(database, log);
    const [sessionCache, now] = [createSessionCache({ feed: changes }), opts.now ?? (() => new Date())];
    return { config, log, database, db: database.db, storage, queue, changes, sessionCache, now };
  } catch (err) {
    await changes.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Every module, in dependency order, each given the kernel and the modules it uses. The few that
 * call a module built after them do it through a closure, at run time.
 */
function composeModules(kernel: Awaited<ReturnType<typeof openKernel>>) {
  const audit = createAuditModule(kernel);
  const limits = createRateLimitModule(kernel);
  const { users } = createAccountsModule({ ...kernel, changes: kernel.sessionCache.changes });
  const mail = createMailModule(kernel);
  const base = { ...kernel, ...audit, ...limits, users, mail: mail.mail };
  const notifications = createNotificationsModule(base);
  const access = createAccessModule(base);
  // Every admin change, whichever module makes it, needs a recent sign-in.
  const requireRecentSignIn = createRecentSignInRule(base);
  const k = { ...base, ...access, notifications: notifications.notifications, requireRecentSignIn };
  const invitations = createInvitationsModule(k);
  const auth = createAuthModule({ ...k, ...invitations });
  const profile = createUsersModule({ ...k, ...auth });
  const prescan = new ArchivePrescan(kernel.log, {
    maxDecodedBytes: kernel.config.dicomMaxDecodedBytes,
    zipLimits: uploadZipLimits(kernel.config),
  });
  const uploads = createUploadsModule({ ...k, ...invitations, ...auth, prescan });
  const studies = createStudiesModule({
    ...k,
    ...invitations,
    ...uploads,
    deidentifiedDownload: (req, reply, studyId) => deidentify.download(req, reply, studyId),
  });
  const ingest = createIngestModule({ ...k, ...studies, ...uploads });
  // DICOMweb and FHIR on the app's origin answer signed-in users and vendors' and links' credentials.
  const principal = (req: FastifyRequest) =>
    sessionPrincipal(auth.auth, vendors.vendors, links.links.credentials)(req);
  const dicomweb = createDicomwebModule({ ...k, principal });
  const onOpen = (p: Principal, study: StudyRow) => sharing.sharing.recordOpen(p, study);
  const viewer = createViewerModule({ ...k, ...dicomweb, onOpen });
  const followUps = () => ({ sharing: sharing.sharing, links: links.links });
  const deidentify = createDeidentifyModule({ ...k, ...studies, followUps });
  // Paid orders that nobody can deliver any more are refunded at once (modules/analysis).
  const onFulfillerLost = () => analysis.refundUndeliverable();
  const providers = createProvidersModule({ ...k, onFulfillerLost });
  const help = createHelpModule(k);
  const sharing = createSharingModule({ ...k, ...auth, ...studies, ...deidentify, ...providers });
  const catalogue = createServicesModule({ ...k, ...providers });
  const orders = createOrdersModule({ ...k, ...catalogue });
  const fulfilment = createFulfilmentModule({ ...k, ...orders });
  const vendors = createVendorsModule({ ...k, ...orders, ...fulfilment });
  const analysis = createAnalysisModule({ ...k, ...orders, ...fulfilment, ...vendors });
  const fhir = createFhirModule({ ...k, principal });
  const links = createLinksModule({ ...k, ...studies, ...deidentify, ...viewer, ...fhir });
  const dataExports = createExportsModule({ ...k, ...fhir });
  const thumbnails = createThumbnailsModule(k);
  const health = createHealthModule(kernel);
  const admin = createAdminModule({ ...k, ...auth, ...mail, ...health, onFulfillerLost });
  const ratings = createRatingsModule({ ...k, ...providers });
  const jobs = createJobsModule({ ...k, ...studies });
  const demo = createDemoModule({ ...k, ...orders, ...fulfilment });
  // In the order their routes are registered.
  const parts: ModuleParts[] = [
    ...[health, auth, admin, profile, uploads, studies, deidentify, jobs, notifications, viewer, thumbnails],
    ...[providers, ratings, sharing, invitations, catalogue, orders, fulfilment, help, vendors, links],
    ...[dataExports, dicomweb, fhir, mail, ingest, analysis, demo],
  ];
  // What the app, main.ts, seed.ts and tests read: the kernel and these services.
  // prettier-ignore
  const services = {
    ...kernel, users, mailer: mail.mailer, mail: mail.mail, captcha: auth.captcha, auth: auth.auth,
    requestWindows: limits.requestWindows, audit: audit.audit, access: access.access,
    professionals: admin.professionals, notifications: notifications.notifications,
    providers: providers.providers, help: help.help, uploadArea: uploads.uploadArea,
    deidentify: deidentify.deidentify, dicomweb: dicomweb.dicomweb, viewerGrants: viewer.viewerGrants,
    fhir: fhir.fhir, links: links.links, analysisServices: catalogue.analysisServices,
    catalogueAdmin: catalogue.catalogueAdmin, orders: orders.orders, fulfilment: fulfilment.fulfilment,
    reportDelivery: fulfilment.reportDelivery, analysis: analysis.analysis, vendors: vendors.vendors,
  };
  return { services, parts };
}

/** Everything a request handler or job may use, built once per process from the config. */
export type Services = Awaited<ReturnType<typeof createServices>>;

export async function createServices(config: Config, log: Logger, opts: ServiceOptions) {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    inMemory: opts.inMemoryDatabase,
    image: opts.databaseImage,
  });
  const kernel = await openKernel(database, config, log, opts).catch(async (err) => {
    await database.close().catch(() => undefined);
    throw err;
  });
  try {
    const { services, parts } = composeModules(kernel);
    // Jobs are registered once every service their handlers call exists, and before any is sent
    // (building modules sends none); handlers start only for registered jobs (jobs/queue.ts).
    await kernel.queue.register(parts.flatMap((part) => part.jobs ?? []));
    if (opts.runWorkers) await kernel.queue.work();
    return {
      ...services,
      jobs: kernel.queue.jobs,
      /** The modules' route plugins, registered by http/app.ts. */
      routes: {
        api: (app: Config) => parts.flatMap((part) => part.routes?.(app) ?? []),
        mounts: () => parts.flatMap((part) => part.mounts?.() ?? []),
      },
      async close() {
        await kernel.queue.stop().catch((err) => log.warn({ err }, 'job queue stop failed'));
        for (const part of parts) await part.close?.();
        await kernel.changes.close();
        await database.close();
      },
    };
  } catch (err) {
    await kernel.queue.stop().catch(() => undefined);
    await kernel.changes.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw err;
  }
}
