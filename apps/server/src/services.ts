import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from './config';
import type { ChangeFeed } from './db/change-feed';
import { openDatabase, type Database } from './db/client';
import { startJobQueue, type JobDefinition, type JobQueue } from './jobs/queue';
import { createAccessRepository } from './modules/access';
import { createAccessService, type AccessService } from './modules/access';
import { createAuditRepository } from './modules/audit';
import { createAuditRecorder, type AuditRecorder } from './modules/audit';
import { createAdminRepository } from './modules/admin';
import { createRecentSignInRule } from './modules/admin';
import { createAdminService, type AdminService } from './modules/admin';
import { createProfessionalsService, type ProfessionalsService } from './modules/admin';
import { createAuthService, type AuthService } from './modules/auth';
import { createEmailTokensRepository } from './modules/auth';
import { createGoogleVerifier } from './modules/auth';
import { createMfaRepository } from './modules/auth';
import { createMfaService, type MfaService } from './modules/auth';
import { createRecoveryService, type RecoveryService } from './modules/auth';
import { createFreshProofRule } from './modules/auth';
import { createSecurityService, type SecurityService } from './modules/auth';
import { createSealer, createSecrets } from './modules/auth';
import { createSessionIssuer } from './modules/auth';
import { createSessionCache, type SessionCache } from './modules/auth';
import { createSessionsRepository } from './modules/auth';
import { createSignInProtection } from './modules/auth';
import {
  createRequestWindows,
  createSpentChallenges,
  createThrottle,
  type RequestWindows,
} from './modules/rate-limit';
import { createMailService, type MailService } from './modules/mail';
import { sendEmailJob } from './modules/mail';
import { createUsersRepository, type UsersRepository } from './modules/accounts';
import { createInvitationTokens } from './modules/invitations';
import { createInvitationsRepository } from './modules/invitations';
import { createInvitationsService, type InvitationsService } from './modules/invitations';
import { createUsersService, type UsersService } from './modules/users';
import { createCaptchaVerifier } from './ports/captcha/index';
import type { CaptchaVerifier } from './ports/captcha/captcha';
import type { Mailer } from './ports/mail/mailer';
import { createOutboxMailer } from './ports/mail/outbox-mailer';
import { createOutboxRepository } from './ports/mail/outbox.repository';
import { createSmtpMailer } from './ports/mail/smtp-mailer';
import { createObjectStorage } from './ports/storage/index';
import type { ObjectStorage } from './ports/storage/storage';
import { processStudyJob } from './modules/ingest';
import { createStudiesRepository } from './modules/studies';
import { createStudiesService, type StudiesService } from './modules/studies';
import { createAuditBuffer } from './modules/studies';
import { ArchivePrescan } from './modules/ingest';
import { createUploadArea, type UploadArea } from './modules/uploads';
import { sweepUploadsJob } from './modules/ingest';
import { finishDeletesJob } from './modules/studies';
import { createUploadTokens, type UploadTokens } from './modules/uploads';
import { createUploadLocker, createUploadsService, type UploadsService } from './modules/uploads';
import { createDicomwebRepository } from './modules/dicomweb';
import { createDicomwebService, type DicomwebService } from './modules/dicomweb';
import { closeRenderPool } from './modules/thumbnails';
import { createThumbnailService, type ThumbnailService } from './modules/thumbnails';
import { createThumbnailsRepository } from './modules/thumbnails';
import { transferStudyJob } from './modules/viewer';
import { createViewerGrants, type ViewerGrants } from './modules/viewer';
import { createViewerGrantsRepository } from './modules/viewer';
import { createViewerRepository } from './modules/viewer';
import { createViewerService, type ViewerService } from './modules/viewer';
import { createDicomStore } from './ports/dicom-store/index';
import { createHealthService, type HealthService } from './modules/health';
import { createJobsService, type JobsService } from './modules/jobs';
import {
  createDeidentifyService,
  deidentifiedCopyJob,
  deidentifiedSendJob,
  type DeidentifyService,
} from './modules/deidentify';
import { createNotificationsRepository } from './modules/notifications';
import { createProvidersRepository } from './modules/providers';
import { createProvidersService, type ProvidersService } from './modules/providers';
import { createNotificationsService, type NotificationsService } from './modules/notifications';
import type { DicomStore } from './ports/dicom-store/dicom-store';
import { createSharingRepository } from './modules/sharing';
import { createSharingService, type SharingService } from './modules/sharing';
import { createOwnershipService, type OwnershipService } from './modules/sharing';
import { defaultQuotaBytes } from './modules/accounts';
import { createServicesRepository } from './modules/services';
import { createServicesService, type ServicesService } from './modules/services';
import { DEMO_FULFIL, demoFulfilJob } from './modules/demo';
import { createRatingsRepository } from './modules/ratings';
import { createRatingsService, type RatingsService } from './modules/ratings';
import { createCatalogueAdminRepository } from './modules/services';
import { createCatalogueAdminService, type CatalogueAdminService } from './modules/services';
import { createOrdersRepository } from './modules/orders';
import { createOrdersService, type OrdersService } from './modules/orders';
import { createFulfilmentRepository } from './modules/fulfilment';
import { createFulfilmentService, type FulfilmentService } from './modules/fulfilment';
import { createReportDelivery, type ReportDelivery } from './modules/fulfilment';
import { createAnalysisRepository } from './modules/analysis';
import { createAnalysisService, VENDOR_REPORT_TIMEOUT_MS, type AnalysisService } from './modules/analysis';
import { analysisSweepJob, RUN_ANALYSIS, runAnalysisJob } from './modules/analysis';
import { createOrderEvents } from './modules/orders';
import { createVendorsRepository } from './modules/vendors';
import { createVendorsService, type VendorsService } from './modules/vendors';
import type { PaymentsPort } from './ports/payments/payments';
import { createSandboxIntentsRepository } from './ports/payments/sandbox-intents.repository';
import { createSandboxProcessor } from './ports/payments/sandbox-processor';
import { createStripeProcessor } from './ports/payments/stripe-processor';
import { createHelpRepository } from './modules/help';
import { createHelpService, type HelpService } from './modules/help';
import { createFhirRepository, createFhirService, type FhirService } from './modules/fhir';
import { createLinksRepository, createLinksService, type LinksService } from './modules/links';
import {
  buildExportJob,
  createExportsRepository,
  createExportsService,
  expireExportsJob,
} from './modules/exports';
import type { ExportsService } from './modules/exports';
import { createPs315Deidentifier } from './modules/exports';

/** Everything a request handler or job may use, built once per process from the config. */
export interface Services {
  config: Config;
  log: Logger;
  database: Database;
  storage: ObjectStorage;
  mailer: Mailer;
  captcha: CaptchaVerifier;
  /** Per-address request counters of the rate-limited routes, shared by every API process. */
  requestWindows: RequestWindows;
  queue: JobQueue;
  jobs: readonly JobDefinition[];
  audit: AuditRecorder;
  mail: MailService;
  users: UsersRepository;
  auth: AuthService;
  /** Change notifications from the database, for in-memory caches. */
  changes: ChangeFeed;
  /** Live sessions in memory, kept current by change notifications. */
  sessionCache: SessionCache;
  mfa: MfaService;
  recovery: RecoveryService;
  /** Proofs of identity for security settings; changing the password and the email address. */
  security: SecurityService;
  usersService: UsersService;
  professionals: ProfessionalsService;
  /** Admin area: the mail outbox and failed jobs. */
  admin: AdminService;
  /** Liveness of database, storage and queue. */
  health: HealthService;
  notifications: NotificationsService;
  /** The provider directory (its automated provider seeded by seed.ts) and each user's trusted network. */
  providers: ProvidersService;
  /** A user's pending study jobs. */
  jobsService: JobsService;
  /** The clock every account rule reads (tests move it instead of sleeping). */
  now: () => Date;
  /** Where tus uploads land before processing. */
  uploadArea: UploadArea;
  /** Reads file uploads while they arrive, so processing finds the work done (local upload area only). */
  prescan?: ArchivePrescan;
  /** Short-lived upload credentials (storage token). */
  uploadTokens: UploadTokens;
  /** Upload credentials and the rules every upload request passes. */
  uploads: UploadsService;
  studies: StudiesService;
  /** De-identified copies, previews and downloads of a patient's own studies (docs/deidentification.md). */
  deidentify: DeidentifyService;
  /** Who may do what with a study: the one check every study-derived route goes through. */
  access: AccessService;
  /** Where the viewer's images are read from: built-in, or an external DICOMweb server (DICOMWEB_URL). */
  dicomStore: DicomStore;
  /** QIDO-RS / WADO-RS / WADO-URI over stored studies. */
  dicomweb: DicomwebService;
  /** FHIR R4 resources of the studies a principal may read: the /fhir/R4 API and a study link's bundle. */
  fhir: FhirService;
  /** Study links (SMART Health Links): the owner's links and the public protocol. */
  links: LinksService;
  /** 'Export my data': a patient's full export (DICOM media, reports, FHIR, history), kept 7 days. */
  dataExports: ExportsService;
  /** Viewer credentials, each scoped to one study. */
  viewerGrants: ViewerGrants;
  viewer: ViewerService;
  thumbnails: ThumbnailService;
  /** Invite links, invitation emails, shared uploads and provider referrals. */
  invitations: InvitationsService;
  /** Study shares and access receipts. */
  sharing: SharingService;
  /** Moving studies between owners. */
  ownership: OwnershipService;
  /** The card processor: the embedded sandbox, or Stripe (STRIPE_* vars). */
  payments: PaymentsPort;
  /** The analysis service catalogue (seeded by seed.ts). */
  analysisServices: ServicesService;
  /** Admin → Services: the catalogue's services and offers. */
  catalogueAdmin: CatalogueAdminService;
  /** Orders of analysis services and the payments that pay them. */
  orders: OrdersService;
  /** Professionals' orders, and reports delivered into studies (`reportDelivery.deliverReport`). */
  fulfilment: FulfilmentService;
  reportDelivery: ReportDelivery;
  /**
   * Automated analyses (AI Quick Analysis, the Complete Analysis Package's automated part) and
   * refunds of orders that cannot be served.
   */
  analysis: AnalysisService;
  /** External AI vendors: webhook settings, orders sent to them, their credentials and reports. */
  vendors: VendorsService;
  ratings: RatingsService;
  /** Help centre articles (seeded by seed.ts) and their authoring. */
  help: HelpService;
  close(): Promise<void>;
}

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

export async function createServices(config: Config, log: Logger, opts: ServiceOptions): Promise<Services> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    inMemory: opts.inMemoryDatabase,
    image: opts.databaseImage,
  });
  let feed: ChangeFeed | undefined;
  let queue: JobQueue | undefined;
  try {
    await database.migrate();
    const now = opts.now ?? (() => new Date());
    // Change notifications keep the in-memory caches (sessions, studies lists) in step with every
    // process writing to the same database.
    feed = await database.openChangeFeed({
      onError: (err) =>
        log.warn({ err }, 'change notifications interrupted; caches dropped until reconnected'),
    });
    const sessionCache = createSessionCache({ feed });
    const storage = createObjectStorage({ dataDir: config.dataDir, s3: config.s3 });
    // What a killed process was writing. On the embedded database this is the only process, so every
    // temp file is a leftover; with PostgreSQL others may share the directory, so only stale ones go.
    const swept = await storage.sweepStaging?.(database.kind === 'pglite' ? 0 : 10 * 60_000);
    if (swept) log.info({ files: swept }, 'removed temp files left by an interrupted write');
    const outbox = createOutboxRepository(database.db);
    const mailer = config.smtpUrl
      ? createSmtpMailer(config.smtpUrl, config.mailFrom)
      : createOutboxMailer(outbox, log);
    const captcha = createCaptchaVerifier(config, createSpentChallenges(database.db));

    // Ports and repositories, each built once.
    queue = await startJobQueue(database, log);
    const auditRepo = createAuditRepository(database.db);
    const audit = createAuditRecorder(auditRepo, log);
    const users = createUsersRepository(database.db, sessionCache.changes);
    const sessions = createSessionsRepository(database.db, sessionCache);
    const throttle = createThrottle(database.db, now);
    const mfaRepo = createMfaRepository(database.db);
    const emailTokens = createEmailTokensRepository(database.db);
    const secrets = createSecrets(config.sessionSecret);
    const studiesRepo = createStudiesRepository(database.db);
    const dicomwebRepo = createDicomwebRepository(database.db);
    const viewerRepo = createViewerRepository(database.db);
    const dicomStore = createDicomStore(config);
    const emailJob = sendEmailJob(mailer);
    const mail = createMailService(queue, emailJob);
    const notifications = createNotificationsService({
      repo: createNotificationsRepository(database.db),
      users,
      mail,
      appUrl: config.publicUrl,
    });

    // Uploads and their processing.
    const archivePrescan = new ArchivePrescan(log, config.dicomMaxDecodedBytes);
    const uploadArea = createUploadArea(config, storage, archivePrescan);
    // Only uploads on local disk pass through this process's writes.
    const prescan = uploadArea.localPath ? archivePrescan : undefined;
    const processStudy = processStudyJob({
      repo: studiesRepo,
      storage,
      uploadArea,
      users,
      mail,
      appUrl: config.publicUrl,
      defaultMaxStorageGB: config.defaultMaxStorageGB,
      zipLimits: { maxEntries: config.uploadMaxEntries },
      maxDecodedBytes: config.dicomMaxDecodedBytes,
      prescan,
    });
    const sweepUploads = sweepUploadsJob({
      queue,
      repo: studiesRepo,
      uploadArea,
      processStudy,
      expiryMs: config.uploadExpiryMs,
      now,
    });
    const finishDeletes = finishDeletesJob({ repo: studiesRepo, storage, now });
    const access = createAccessService({ repo: createAccessRepository(database.db), audit });
    const dicomweb = createDicomwebService({
      repo: dicomwebRepo,
      access,
      storage,
      store: dicomStore,
      audit,
      log,
      maxDecodedBytes: config.dicomMaxDecodedBytes,
    });
    const transferStudy = transferStudyJob({
      viewer: viewerRepo,
      store: dicomStore,
      storage,
      repo: dicomwebRepo,
      dicomweb,
    });
    // Invitations: needed by registration (referrals), uploads and processing (shared uploads).
    const invitations = createInvitationsService({
      repo: createInvitationsRepository(database.db),
      tokens: createInvitationTokens(config.sessionSecret),
      users,
      mail,
      audit,
      throttle,
      appUrl: config.publicUrl,
      defaultMaxStorageGB: config.defaultMaxStorageGB,
      notifications,
      now,
    });

    // Accounts.
    const issueSession = createSessionIssuer({ sessions, audit, sessionMaxMs: config.sessionMaxMs, now });
    // Security settings need a recent proof of identity (modules/auth/fresh-proof.ts).
    const requireFreshProof = createFreshProofRule({ audit, now });
    const mfa = createMfaService({
      users,
      repo: mfaRepo,
      mail,
      audit,
      throttle,
      secrets,
      issueSession,
      requireFreshProof,
      now,
    });
    const signInProtection = createSignInProtection({
      throttle,
      tokens: emailTokens,
      users,
      mail,
      audit,
      sessionSecret: config.sessionSecret,
      appUrl: config.publicUrl,
      now,
    });
    const recovery = createRecoveryService({
      users,
      sessions,
      tokens: emailTokens,
      mfa: mfaRepo,
      mail,
      audit,
      throttle,
      log,
      appUrl: config.publicUrl,
      now,
    });
    const verifyGoogleToken = config.googleClientId
      ? createGoogleVerifier({ clientId: config.googleClientId, jwksUrl: config.googleJwksUrl, now })
      : undefined;
    const auth = createAuthService({
      users,
      sessions,
      captcha,
      mail,
      audit,
      throttle,
      signInProtection,
      mfa,
      recovery,
      issueSession,
      verifyGoogleToken,
      appUrl: config.publicUrl,
      sessionIdleMs: config.sessionIdleMs,
      referrals: invitations,
      requireFreshProof,
      now,
    });
    const security = createSecurityService({
      users,
      sessions,
      tokens: emailTokens,
      mfaRepo,
      mfa,
      mail,
      audit,
      throttle,
      requireFreshProof,
      verifyGoogleToken,
      appUrl: config.publicUrl,
      now,
    });
    const usersService = createUsersService({
      users,
      audit,
      mail,
      requireFreshProof,
      appUrl: config.publicUrl,
      now,
    });
    const professionals = createProfessionalsService({ users, audit, mail, appUrl: config.publicUrl, now });

    // Studies, the viewer and thumbnails.
    const studiesAuditBuffer = createAuditBuffer(auditRepo, log);
    const studies = createStudiesService({
      repo: studiesRepo,
      access,
      storage,
      uploadArea,
      queue,
      job: processStudy,
      audit,
      auditBuffer: studiesAuditBuffer,
      changes: feed,
      invitations,
    });
    const deidentify = createDeidentifyService({
      access,
      studiesRepo,
      storage,
      queue,
      audit,
      secret: config.sessionSecret,
      defaultMaxStorageGB: config.defaultMaxStorageGB,
      notify: (userId, event) => notifications.notify(userId, event),
      // A de-identified share or link, once its copies exist: sharing and links are built below.
      sendCopies: (userId, copyStudyIds, then) =>
        then.kind === 'share'
          ? sharing.shareCopy(
              userId,
              copyStudyIds[0]!,
              (then as { recipient?: Record<string, unknown> }).recipient ?? {},
            )
          : links.createForCopies(userId, copyStudyIds, then),
    });
    // Every admin change, whichever module makes it, needs a recent sign-in.
    const requireRecentSignIn = createRecentSignInRule({ audit, now });
    // Paid orders that nobody can deliver any more are refunded at once: the analysis module,
    // built further down, does it; providers and admin call it when a professional stops.
    let refundUndeliverable: () => Promise<unknown> = async () => undefined;
    const onFulfillerLost = () => refundUndeliverable();
    // The provider directory and trusted networks; a new installation holds only the platform's
    // own automated analysis (verified professionals publish their profiles, admins add organisations).
    const providers = createProvidersService({
      repo: createProvidersRepository(database.db),
      users,
      audit,
      throttle,
      notifications,
      requireRecentSignIn,
      onFulfillerLost,
      now,
    });
    // The help centre (its starting articles are applied by seed.ts, seedReferenceData).
    const help = createHelpService({
      repo: createHelpRepository(database.db),
      storage,
      audit,
      requireRecentSignIn,
      now,
    });
    // Sharing: study shares, ownership moves and access receipts.
    const sharingRepo = createSharingRepository(database.db);
    const sharing = createSharingService({
      repo: sharingRepo,
      access,
      users,
      providers,
      notifications,
      mail,
      audit,
      throttle,
      secrets,
      auditBuffer: studiesAuditBuffer,
      changes: feed,
      deidentified: deidentify,
      appUrl: config.publicUrl,
      now,
    });
    const ownership = createOwnershipService({
      repo: sharingRepo,
      access,
      users,
      notifications,
      mail,
      audit,
      throttle,
      changes: feed,
      appUrl: config.publicUrl,
      defaultMaxStorageBytes: defaultQuotaBytes(config.defaultMaxStorageGB),
      now,
    });
    // Analysis services: the catalogue (seeded by seed.ts, seedReferenceData).
    const analysisServices = createServicesService({
      repo: createServicesRepository(database.db),
      audit,
      professionalProviderId: (userId) => providers.professional.providerId(userId),
      now,
    });
    const catalogueAdmin = createCatalogueAdminService({
      repo: createCatalogueAdminRepository(database.db),
      audit,
      requireRecentSignIn,
      now,
    });
    const payments: PaymentsPort = config.stripe
      ? createStripeProcessor(config.stripe)
      : createSandboxProcessor({
          repo: createSandboxIntentsRepository(database.db),
          secret: config.sessionSecret,
          now,
        });
    // Orders are paid and ended here, delivered by fulfilment and acted on by the analysis and
    // vendors modules built after them: those subscribe to the hub once built (below).
    const orderEvents = createOrderEvents(log);
    const orders = createOrdersService({
      repo: createOrdersRepository(database.db),
      catalogue: analysisServices,
      access,
      payments,
      users,
      mail,
      audit,
      appUrl: config.publicUrl,
      now,
      events: orderEvents,
    });
    const fulfilmentRepo = createFulfilmentRepository(database.db);
    const reportDelivery = createReportDelivery({
      repo: fulfilmentRepo,
      storage,
      notifications,
      audit,
      events: orderEvents,
      now,
    });
    const vendors = createVendorsService({
      repo: createVendorsRepository(database.db),
      sessionSecret: config.sessionSecret,
      audit,
      deliver: reportDelivery.deliverReport,
      requireRecentSignIn,
      log: log.child({ module: 'vendors' }),
      publicUrl: config.publicUrl,
      allowLoopbackHttp: config.vendorAllowLoopback,
      webhookTimeoutMs: config.vendorWebhookTimeoutMs,
      credentialTtlMs: VENDOR_REPORT_TIMEOUT_MS,
      now,
    });
    const analysisQueue = queue;
    const analysis = createAnalysisService({
      repo: createAnalysisRepository(database.db),
      storage,
      notifications,
      audit,
      log: log.child({ module: 'analysis' }),
      enqueue: async (data) => {
        await analysisQueue.send(RUN_ANALYSIS, data, { singletonKey: data.orderId });
      },
      deliverReport: reportDelivery.deliverReport,
      refundOrder: (orderId, reason) => orders.refundOrder(orderId, reason),
      vendors,
      approvalTimeoutMs: config.orderAcceptMs,
      maxDecodedBytes: config.dicomMaxDecodedBytes,
      now,
    });
    refundUndeliverable = () => analysis.refundUndeliverable(log.child({ module: 'analysis' }));
    orderEvents.on('paid', ({ orderId }) => analysis.queueAutomatedPart(orderId));
    // A payment that completes after its professional stopped is refunded at once.
    orderEvents.on('paid', async () => {
      await refundUndeliverable();
    });
    // Demo readers deliver the orders sent to them (src/modules/demo/demo.service.ts); only when demo data is on.
    if (config.demoData)
      orderEvents.on('paid', async ({ orderId }) => {
        await analysisQueue.send(DEMO_FULFIL, { orderId }, { singletonKey: orderId });
      });
    orderEvents.on('studyAttached', ({ orderId }) => analysis.queueAutomatedPart(orderId));
    orderEvents.on('ended', ({ orderId }) => vendors.endOrder(orderId));
    const fulfilment = createFulfilmentService({
      repo: fulfilmentRepo,
      delivery: reportDelivery,
      access,
      refundOrder: (orderId, reason, options) => orders.refundOrder(orderId, reason, options),
      notifications,
      storage,
      audit,
      now,
      startAutomated: (orderId, status) => orderEvents.emit('studyAttached', { orderId, status }),
    });
    const viewerGrants = createViewerGrants(createViewerGrantsRepository(database.db), now, feed);
    const viewer = createViewerService({
      repo: viewerRepo,
      access,
      grants: viewerGrants,
      queue,
      job: transferStudy,
      audit,
      viewerPublicUrl: config.viewerPublicUrl,
      onOpen: (p, study) => sharing.recordOpen(p, study),
    });
    const fhir = createFhirService({
      repo: createFhirRepository(database.db),
      access,
      storage,
      audit,
      publicUrl: config.publicUrl,
      now,
    });
    const links = createLinksService({
      repo: createLinksRepository(database.db),
      access,
      users,
      audit,
      notify: (userId, event) => notifications.notify(userId, event),
      bundle: (p, opts, meta) => fhir.studyBundle(p, opts, meta),
      deidentified: deidentify,
      viewerGrant: (ownerId, studyId, link) => viewerGrants.issue(ownerId, studyId, null, link),
      // The links' keys and passcodes are sealed with their own key derived from SESSION_SECRET.
      seal: createSealer(createHmac('sha256', config.sessionSecret).update('study-link-secrets').digest()),
      publicUrl: config.publicUrl,
      viewerPublicUrl: config.viewerPublicUrl,
      now,
    });
    const dataExports = createExportsService({
      repo: createExportsRepository(database.db),
      storage,
      access,
      audit,
      queue,
      notify: (userId, event) => notifications.notify(userId, event),
      bundle: (p, opts, meta) => fhir.exportBundle(p, opts, meta),
      // De-identified exports: the PS3.15 engine with the same secret-derived date shift as copies.
      deidentify: createPs315Deidentifier(config.sessionSecret),
      now,
    });
    const thumbnails = createThumbnailService({
      repo: createThumbnailsRepository(database.db),
      storage,
      access,
      audit,
      log,
      maxDecodedBytes: config.dicomMaxDecodedBytes,
    });
    const uploadTokens = createUploadTokens(config.sessionSecret);
    const uploads = createUploadsService({
      tokens: uploadTokens,
      auth,
      users,
      uploadArea,
      audit,
      prescan,
      defaultMaxStorageGB: config.defaultMaxStorageGB,
      invitations,
      locker: createUploadLocker(database, feed),
    });

    // The rest of the API.
    const startedQueue = queue;
    const health = createHealthService({
      database: { kind: database.kind, check: () => database.ping() },
      storage,
      queue: { check: () => startedQueue.ping() },
    });
    const admin = createAdminService({
      repo: createAdminRepository(database.db),
      requireRecentSignIn,
      users,
      sessions,
      mfa,
      issueSession,
      throttle,
      outbox,
      queue,
      health,
      audit,
      dataDir: config.dataDir,
      defaultMaxStorageGB: config.defaultMaxStorageGB,
      onFulfillerLost,
      now,
    });
    const ratings = createRatingsService({
      repo: createRatingsRepository(database.db),
      audit,
      canSeeProvider: async (userId, providerId) => Boolean(await providers.findForUser(userId, providerId)),
      requireRecentSignIn,
      now,
    });
    const jobsService = createJobsService({ queue, studies });

    // Jobs are registered once every service their handlers call exists, and before any is sent
    // (nothing above sends one); handlers start only for registered jobs (jobs/queue.ts).
    await queue.register([
      emailJob,
      processStudy,
      deidentifiedCopyJob(deidentify),
      deidentifiedSendJob(deidentify),
      sweepUploads,
      finishDeletes,
      transferStudy,
      runAnalysisJob(analysis),
      analysisSweepJob(analysis),
      demoFulfilJob({ database, fulfilment }),
      buildExportJob(dataExports),
      expireExportsJob(dataExports),
    ]);
    if (opts.runWorkers) await queue.work();

    return {
      config,
      log,
      database,
      storage,
      mailer,
      captcha,
      requestWindows: createRequestWindows(database.db),
      queue,
      jobs: queue.jobs,
      audit,
      mail,
      users,
      auth,
      changes: feed,
      sessionCache,
      mfa,
      recovery,
      security,
      usersService,
      professionals,
      admin,
      health,
      notifications,
      jobsService,
      now,
      uploadArea,
      prescan,
      uploadTokens,
      uploads,
      studies,
      deidentify,
      access,
      dicomStore,
      dicomweb,
      fhir,
      links,
      dataExports,
      viewerGrants,
      viewer,
      thumbnails,
      invitations,
      providers,
      sharing,
      ownership,
      payments,
      analysisServices,
      catalogueAdmin,
      orders,
      fulfilment,
      reportDelivery,
      analysis,
      vendors,
      ratings,
      help,
      async close() {
        await startedQueue.stop().catch((err) => log.warn({ err }, 'job queue stop failed'));
        await studiesAuditBuffer.close();
        await mailer.close?.();
        await closeRenderPool();
        await feed?.close();
        await database.close();
      },
    };
  } catch (err) {
    await queue?.stop().catch(() => undefined);
    await feed?.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw err;
  }
}
