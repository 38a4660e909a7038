import { z } from 'zod';

/**
 * Study links: SMART Health Links (HL7 SMART Health Cards and Links IG 1.0.0) that open a
 * patient's studies for someone without an account, under a policy the patient sets. The owner's
 * API lives under /api/studies/links; the public protocol (manifest, files) under /api/shl.
 * Files are JWE with `zip: DEF`: jose (v6) deflates on encrypt and inflates in compactDecrypt by
 * itself, so a reader needs no inflate step of its own. See docs/links.md.
 */

/** Lifetime presets offered by the 'Share by link / QR' dialog, in minutes. */
export const LINK_EXPIRY_PRESETS = [
  { label: '15 minutes', minutes: 15 },
  { label: '1 day', minutes: 24 * 60 },
  { label: '7 days', minutes: 7 * 24 * 60 },
  { label: '30 days', minutes: 30 * 24 * 60 },
] as const;
/** A check-in link (flag U) lives this long unless the patient chooses a shorter time. */
export const CHECKIN_DEFAULT_MINUTES = 15;
/** A check-in link may live at most this long: it is meant for the front desk, not for keeping. */
export const CHECKIN_MAX_MINUTES = 60;
/** Longest a link may live. */
export const LINK_MAX_DAYS = 365;
/** A link that lives longer than this needs a passcode. */
export const PASSCODE_REQUIRED_AFTER_HOURS = 24;
/** Wrong passcodes a link accepts over its whole life before it is disabled. */
export const PASSCODE_ATTEMPTS = 10;
export const LINK_LABEL_MAX = 80;
export const LINK_PASSCODE_MIN = 4;
export const LINK_PASSCODE_MAX = 64;
export const LINK_RECIPIENT_MAX = 120;
/** Studies one link may carry. */
export const LINK_MAX_STUDIES = 50;

const uuid = z.string().uuid();

export const linkModeSchema = z.enum(['share', 'checkin']);
export type LinkMode = z.infer<typeof linkModeSchema>;

export const createLinkSchema = z
  .object({
    studyIds: z.array(uuid).min(1, 'Choose at least one study.').max(LINK_MAX_STUDIES),
    mode: linkModeSchema.default('share'),
    /** ISO date-time; required. */
    expiresAt: z.string().datetime({ offset: true }),
    passcode: z
      .string()
      .min(LINK_PASSCODE_MIN, `The passcode needs at least ${LINK_PASSCODE_MIN} characters.`)
      .max(LINK_PASSCODE_MAX)
      .optional(),
    allowDownload: z.boolean().default(false),
    maxOpens: z.number().int().min(1).max(10_000).optional(),
    label: z
      .string()
      .trim()
      .max(LINK_LABEL_MAX, `The label can have at most ${LINK_LABEL_MAX} characters.`)
      .optional(),
    /** The link carries de-identified copies of the studies (DICOM PS3.15), made first when missing. */
    deidentified: z.boolean().default(false),
  })
  .strict();
export type CreateLinkRequest = z.input<typeof createLinkSchema>;

export const updateLinkSchema = z
  .object({
    paused: z.boolean().optional(),
    expiresAt: z.string().datetime({ offset: true }).optional(),
  })
  .strict()
  .refine((v) => v.paused !== undefined || v.expiresAt !== undefined, 'Nothing to change.');
export type UpdateLinkRequest = z.infer<typeof updateLinkSchema>;

export const linkStatusSchema = z.enum(['active', 'paused', 'expired', 'revoked', 'disabled', 'used_up']);
export type LinkStatus = z.infer<typeof linkStatusSchema>;

export const linkSummarySchema = z.object({
  id: uuid,
  mode: linkModeSchema,
  label: z.string().nullable(),
  status: linkStatusSchema,
  studies: z.array(
    z.object({ id: uuid, description: z.string().nullable(), studyDate: z.string().nullable() }),
  ),
  createdAt: z.string(),
  expiresAt: z.string(),
  hasPasscode: z.boolean(),
  allowDownload: z.boolean(),
  maxOpens: z.number().int().nullable(),
  opens: z.number().int(),
  passcodeAttemptsLeft: z.number().int().nullable(),
  lastOpenedAt: z.string().nullable(),
  lastRecipient: z.string().nullable(),
});
export type LinkSummary = z.infer<typeof linkSummarySchema>;

export const createdLinkSchema = z.object({
  id: uuid,
  /** `shlink:/…` */
  shlink: z.string(),
  /** Our viewer page, `…/shl#shlink:/…`: what the QR code holds and what is sent. */
  viewerUrl: z.string(),
  /** The QR code of `viewerUrl` (error correction M), as SVG markup. */
  qrSvg: z.string(),
  link: linkSummarySchema,
});
export type CreatedLink = z.infer<typeof createdLinkSchema>;

/** A de-identified link whose copies are still being made: it appears on the Links page when ready. */
export const pendingLinkSchema = z.object({
  pending: z.literal(true),
  jobId: z.string(),
  message: z.string(),
});
export type PendingLink = z.infer<typeof pendingLinkSchema>;

export const linkListSchema = z.object({ links: z.array(linkSummarySchema) });
export type LinkList = z.infer<typeof linkListSchema>;

// ---------------------------------------------------------------- the public protocol

/** Body of a manifest request (share mode). */
export const manifestRequestSchema = z.object({
  recipient: z.string().trim().min(1, 'Enter your name.').max(LINK_RECIPIENT_MAX),
  passcode: z.string().max(200).optional(),
  embeddedLengthMax: z.number().int().min(0).optional(),
});

/** What the viewer page asks after decrypting the bundle: open the images of one study. */
export const linkViewerOpenSchema = z.object({ studyId: uuid });
export const linkViewerOpenResponseSchema = z.object({ viewerUrl: z.string() });
export const linkDownloadResponseSchema = z.object({ url: z.string() });
