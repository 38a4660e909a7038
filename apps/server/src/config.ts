import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** Thrown when the environment has bad values; lists every bad variable at once. */
export class ConfigError extends Error {}

const optionalUrl = z.url().optional();
const port = z.coerce.number().int().min(1).max(65535);
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Environment variables the server reads. Nothing else reads process.env. */
const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** HTTP port of the API and SPA. */
  PORT: port.default(3000),
  /** Address to bind. */
  HOST: z.string().min(1).default('0.0.0.0'),
  /** Where the embedded database, stored objects, uploads and generated secrets live. */
  DATA_DIR: z.string().min(1).default('./data'),
  /** Public base URL of the app, used in emailed links (default http://localhost:PORT). */
  PUBLIC_URL: optionalUrl,
  /** Port of the DICOM viewer's own origin (default PORT+1). */
  VIEWER_PORT: port.optional(),
  /** Public base URL of the viewer origin in production. */
  VIEWER_PUBLIC_URL: optionalUrl,
  /** External DICOMweb server (e.g. Orthanc's /dicom-web) that studies are pushed to for viewing; built-in store when absent. */
  DICOMWEB_URL: optionalUrl,
  /** PostgreSQL connection string; when absent, the embedded PGlite in DATA_DIR is used. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  /** SMTP server URL (smtp:// or smtps://); when absent mail goes to the in-app outbox. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Medical Imaging <no-reply@localhost>'),
  S3_BUCKET: z.string().min(3).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ENDPOINT: optionalUrl,
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: bool.default(false),
  /** Secret for signing; generated and kept in DATA_DIR when absent. */
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Default storage quota per user, in GB (1024^3 bytes). */
  DEFAULT_MAX_STORAGE_GB: z.coerce.number().positive().default(10),
  /** Most files and folders one uploaded ZIP may contain (a ZIP-bomb guard). */
  UPLOAD_MAX_ENTRIES: z.coerce.number().int().min(1).default(100_000),
  /** Largest decoded image (rows × columns × frames × samples × bits) an instance may declare, in MiB. */
  DICOM_MAX_DECODED_MB: z.coerce.number().int().min(1).default(4096),
  /** Abandoned uploads (unfinished, or finished but never sent for processing) are removed after this many hours. */
  UPLOAD_EXPIRY_HOURS: z.coerce.number().positive().default(168),
  /** A paid order no professional has accepted within this many hours is refunded. */
  ORDER_ACCEPT_HOURS: z.coerce.number().positive().default(48),
  /** How long a call to an external AI vendor's webhook may take (modules/vendors). */
  VENDOR_WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().positive().max(120).default(10),
  /** Accept http:// vendor webhooks to this machine (127.0.0.1, localhost) in production too; always accepted elsewhere. */
  VENDOR_ALLOW_LOOPBACK: bool.default(false),
  DEMO_DATA: bool.default(false),
  /** `serve` runs the jobs too; `false` makes an API-only node (PostgreSQL only; run `worker` processes for the jobs). */
  SERVE_RUNS_JOBS: bool.default(true),
  RECAPTCHA_SITE_KEY: z.string().min(1).optional(),
  RECAPTCHA_SECRET_KEY: z.string().min(1).optional(),
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  /** Where the service's terms and conditions are published; the registration forms link to them. */
  TERMS_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Where Google's ID-token signing keys are published (tests point it at a local JWKS). */
  GOOGLE_JWKS_URL: z.url().default('https://www.googleapis.com/oauth2/v3/certs'),
  /** Work factor of the ALTCHA proof-of-work (PBKDF2 iterations per attempt). */
  ALTCHA_COST: z.coerce.number().int().min(1).max(100_000).default(1_000),
  /** Email of the admin account created on first start. */
  ADMIN_EMAIL: z.email().default('admin@localhost.localdomain'),
  /** Minutes of inactivity after which a session ends on the server. */
  SESSION_IDLE_MINUTES: z.coerce.number().positive().default(30),
  /** Hours after sign-in after which a session ends regardless of activity. */
  SESSION_MAX_HOURS: z.coerce.number().positive().default(12),
  /** Minutes before the idle timeout at which the browser warns (by default 5 of the 30 idle minutes). */
  SESSION_WARNING_MINUTES: z.coerce.number().positive().default(5),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Set to true behind a TLS-terminating proxy so client IPs and HTTPS are read from it. */
  TRUST_PROXY: bool.default(false),
  /** Stripe keys (all three together); when absent, card payments go to the embedded sandbox processor. */
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_PUBLISHABLE_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Another address for Stripe's API (tests run a local server speaking the endpoints used). */
  STRIPE_API_URL: optionalUrl,
});

/** Variables that only make sense together; checked on the raw values so every problem is listed at once. */
function crossFieldIssues(env: Record<string, string | undefined>): string[] {
  const issues: string[] = [];
  const s3Keys = ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'];
  const set = s3Keys.filter((k) => env[k] !== undefined);
  if (set.length > 0 && set.length < s3Keys.length) {
    for (const k of s3Keys) if (env[k] === undefined) issues.push(`  ${k}: required when S3 is configured`);
  }
  if ((env.RECAPTCHA_SITE_KEY === undefined) !== (env.RECAPTCHA_SECRET_KEY === undefined)) {
    const missing = env.RECAPTCHA_SITE_KEY === undefined ? 'RECAPTCHA_SITE_KEY' : 'RECAPTCHA_SECRET_KEY';
    issues.push(`  ${missing}: both reCAPTCHA keys must be set together`);
  }
  if (['false', '0', 'no'].includes(env.SERVE_RUNS_JOBS ?? '') && !env.DATABASE_URL)
    issues.push(
      '  SERVE_RUNS_JOBS: only PostgreSQL (DATABASE_URL) can have API-only nodes; on the embedded database `serve` runs the jobs',
    );
  const stripeKeys = ['STRIPE_SECRET_KEY', 'STRIPE_PUBLISHABLE_KEY', 'STRIPE_WEBHOOK_SECRET'];
  const stripeSet = stripeKeys.filter((k) => env[k] !== undefined);
  if (stripeSet.length > 0 && stripeSet.length < stripeKeys.length) {
    for (const k of stripeKeys)
      if (env[k] === undefined) issues.push(`  ${k}: required when Stripe is configured`);
  }
  return issues;
}

export type Env = z.infer<typeof envSchema>;

export interface Config {
  env: Env['NODE_ENV'];
  port: number;
  host: string;
  dataDir: string;
  publicUrl: string;
  viewerPort: number;
  viewerPublicUrl: string;
  /** External DICOMweb root without trailing slash, or undefined for the built-in store. */
  dicomwebUrl: string | undefined;
  databaseUrl: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  s3:
    | {
        bucket: string;
        region: string;
        endpoint?: string;
        accessKeyId: string;
        secretAccessKey: string;
        forcePathStyle: boolean;
      }
    | undefined;
  sessionSecret: string;
  defaultMaxStorageGB: number;
  uploadMaxEntries: number;
  /** Bytes; see pixel-budget.ts. */
  dicomMaxDecodedBytes: number;
  uploadExpiryMs: number;
  /** See ORDER_ACCEPT_HOURS. */
  orderAcceptMs: number;
  /** See VENDOR_WEBHOOK_TIMEOUT_SECONDS. */
  vendorWebhookTimeoutMs: number;
  /**
   * Seed the labelled demo directory, demo accounts that really accept and deliver orders, and
   * sample studies (`npm run demo`, src/modules/demo/demo.service.ts).
   */
  demoData: boolean;
  /** Whether `serve` runs job handlers as well as the API (SERVE_RUNS_JOBS; `serve --no-jobs` turns it off). */
  serveRunsJobs: boolean;
  /** Whether http:// vendor webhooks to this machine are accepted (not production, or VENDOR_ALLOW_LOOPBACK). */
  vendorAllowLoopback: boolean;
  recaptcha: { siteKey: string; secretKey: string } | undefined;
  googleClientId: string | undefined;
  termsUrl: string | undefined;
  googleJwksUrl: string;
  altchaCost: number;
  adminEmail: string;
  sessionIdleMs: number;
  sessionMaxMs: number;
  /** Lead time of the browser's timeout warning; always shorter than the idle timeout. */
  sessionWarningMs: number;
  logLevel: Env['LOG_LEVEL'];
  trustProxy: boolean;
  secureCookies: boolean;
  /** Stripe as the card processor; undefined for the embedded sandbox processor. */
  stripe:
    | {
        secretKey: string;
        publishableKey: string;
        webhookSecret: string;
        apiBase?: { host: string; port: number; protocol: 'http' | 'https' };
      }
    | undefined;
}

/** Parses the environment once. Throws ConfigError naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset, so `FOO=` in a shell does not trip validation.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  const lines = [
    ...(parsed.success
      ? []
      : parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`)),
    ...crossFieldIssues(cleaned),
  ];
  if (!parsed.success || lines.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${[...new Set(lines)].join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const viewerPort = e.VIEWER_PORT ?? e.PORT + 1;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    publicUrl,
    viewerPort,
    viewerPublicUrl: (e.VIEWER_PUBLIC_URL ?? `http://localhost:${viewerPort}`).replace(/\/+$/, ''),
    dicomwebUrl: e.DICOMWEB_URL?.replace(/\/+$/, ''),
    databaseUrl: e.DATABASE_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    s3:
      e.S3_BUCKET && e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY
        ? {
            bucket: e.S3_BUCKET,
            region: e.S3_REGION,
            endpoint: e.S3_ENDPOINT,
            accessKeyId: e.S3_ACCESS_KEY_ID,
            secretAccessKey: e.S3_SECRET_ACCESS_KEY,
            forcePathStyle: e.S3_FORCE_PATH_STYLE,
          }
        : undefined,
    sessionSecret: e.SESSION_SECRET ?? readOrCreateSecret(dataDir),
    defaultMaxStorageGB: e.DEFAULT_MAX_STORAGE_GB,
    uploadMaxEntries: e.UPLOAD_MAX_ENTRIES,
    dicomMaxDecodedBytes: e.DICOM_MAX_DECODED_MB * 1024 * 1024,
    uploadExpiryMs: Math.round(e.UPLOAD_EXPIRY_HOURS * 3600 * 1000),
    orderAcceptMs: Math.round(e.ORDER_ACCEPT_HOURS * 3600 * 1000),
    vendorWebhookTimeoutMs: Math.round(e.VENDOR_WEBHOOK_TIMEOUT_SECONDS * 1000),
    vendorAllowLoopback: e.NODE_ENV !== 'production' || e.VENDOR_ALLOW_LOOPBACK,
    demoData: e.DEMO_DATA,
    serveRunsJobs: e.SERVE_RUNS_JOBS,
    recaptcha:
      e.RECAPTCHA_SITE_KEY && e.RECAPTCHA_SECRET_KEY
        ? { siteKey: e.RECAPTCHA_SITE_KEY, secretKey: e.RECAPTCHA_SECRET_KEY }
        : undefined,
    googleClientId: e.GOOGLE_CLIENT_ID,
    termsUrl: e.TERMS_URL,
    googleJwksUrl: e.GOOGLE_JWKS_URL,
    altchaCost: e.ALTCHA_COST,
    adminEmail: e.ADMIN_EMAIL.toLowerCase(),
    sessionIdleMs: e.SESSION_IDLE_MINUTES * 60_000,
    sessionMaxMs: e.SESSION_MAX_HOURS * 3_600_000,
    sessionWarningMs:
      e.SESSION_WARNING_MINUTES < e.SESSION_IDLE_MINUTES
        ? e.SESSION_WARNING_MINUTES * 60_000
        : (e.SESSION_IDLE_MINUTES * 60_000) / 6,
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    secureCookies: publicUrl.startsWith('https://'),
    stripe:
      e.STRIPE_SECRET_KEY && e.STRIPE_PUBLISHABLE_KEY && e.STRIPE_WEBHOOK_SECRET
        ? {
            secretKey: e.STRIPE_SECRET_KEY,
            publishableKey: e.STRIPE_PUBLISHABLE_KEY,
            webhookSecret: e.STRIPE_WEBHOOK_SECRET,
            apiBase: e.STRIPE_API_URL ? stripeApiBase(e.STRIPE_API_URL) : undefined,
          }
        : undefined,
  };
}

/** Keeps a generated secret in DATA_DIR so sessions survive restarts without configuration. */
function readOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, 'session-secret');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(48).toString('base64url');
    try {
      writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
      return secret;
    } catch {
      // Another process won the race; use its secret.
      return readFileSync(file, 'utf8').trim();
    }
  }
}

function stripeApiBase(url: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const u = new URL(url);
  const protocol = u.protocol === 'http:' ? 'http' : 'https';
  return { host: u.hostname, port: Number(u.port) || (protocol === 'http' ? 80 : 443), protocol };
}
