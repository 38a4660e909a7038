import { z } from 'zod';
import { emailSchema } from './rules';
import { studyListItemSchema } from './studies';
import { vendorSummarySchema } from './vendors';

/**
 * Sharing: the provider directory and a user's trusted network, study shares, ownership,
 * invitations and access receipts. Field names follow the product specification (`_id` and `id`
 * carry the same value).
 */

const uuid = z.string().uuid();

// ---------------------------------------------------------------- providers

export const providerSchema = z.object({
  _id: z.string(),
  id: z.string(),
  name: z.string(),
  specialty: z.string().nullable(),
  description: z.string().nullable(),
  /** A numeric string, e.g. '12'. */
  yearsOfExperience: z.string().nullable(),
  /** The mean of the stars patients gave its completed orders (1-5, one decimal); null without ratings. */
  rating: z.number().nullable(),
  /** How many ratings the mean is made of. */
  ratingCount: z.number().int(),
  /**
   * A verified professional's own profile, an organisation an admin added, or the platform's own
   * automated analysis (contracts/directory.ts); a user's private contact is 'contact'.
   */
  kind: z.enum(['professional', 'organisation', 'automated', 'contact']),
  /** For a professional's profile: the licence an admin verified, and when. */
  verified: z.object({ licenseState: z.string(), verifiedAt: z.string() }).nullable(),
  hospital: z.string().nullable(),
  position: z.string().nullable(),
  /** Seeded by `npm run demo`: shown labelled 'Demo' wherever it appears. */
  demo: z.boolean(),
  credentials: z.array(z.string()),
  location: z
    .object({
      street: z.string(),
      city: z.string(),
      state: z.string(),
      zipCode: z.string(),
      country: z.string(),
    })
    .nullable(),
  academicProfile: z.object({ rank: z.string(), numberOfPublications: z.number() }).nullable(),
  contactInformation: z.object({
    email: z.string(),
    mobile: z.string().nullable(),
    website: z.string().nullable(),
  }),
  workingHours: z.object({ weekdays: z.string(), weekends: z.string() }).nullable(),
  /** Whether a verified professional account receives what is shared with this provider. */
  onPlatform: z.boolean(),
});
export type Provider = z.infer<typeof providerSchema>;

export const providerListSchema = z.object({ data: z.array(providerSchema) });
export const providerIdBodySchema = z.strictObject({ providerId: uuid });
export const inviteProviderBodySchema = z.strictObject({ to: emailSchema });
export const messageSchema = z.object({ message: z.string() });

/** Provider experience buckets of the /providers filter. */
export const EXPERIENCE_BUCKETS = ['0-5', '5-10', '10-15', '15+'] as const;
export type ExperienceBucket = (typeof EXPERIENCE_BUCKETS)[number];
export function experienceBucket(years: string | null | undefined): ExperienceBucket | null {
  const n = Number(years);
  if (years == null || years === '' || !Number.isFinite(n)) return null;
  if (n <= 5) return '0-5';
  if (n <= 10) return '5-10';
  if (n <= 15) return '10-15';
  return '15+';
}

/** GET /api/providers: the directory, optionally narrowed (name or email, specialty, country, experience). */
export const providerListQuerySchema = z.object({
  q: z.string().trim().max(200).optional(),
  specialty: z.string().trim().max(100).optional(),
  country: z.string().trim().max(100).optional(),
  experience: z.enum(EXPERIENCE_BUCKETS).optional(),
});
export type ProviderListQuery = z.infer<typeof providerListQuerySchema>;
export const providerResponseSchema = z.object({ message: z.string(), data: providerSchema });

// ---------------------------------------------------------------- providers (admin)

const requiredText = (label: string, max = 200) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(max);
const optionalText = (max = 200) => z.string().trim().max(max);

/**
 * The admin form of an organisation (clinic, teleradiology group, AI vendor): every field of a
 * directory entry but its rating, which patients give. Empty optional texts are stored as empty.
 */
export const providerInputSchema = z.strictObject({
  name: requiredText('Name'),
  specialty: requiredText('Specialty', 100),
  description: optionalText(2000),
  yearsOfExperience: z
    .string()
    .trim()
    .min(1, 'Years of experience is required')
    .regex(/^\d{1,2}$/, 'Years of experience must be a whole number from 0 to 99'),
  credentials: z.array(z.string().trim().min(1).max(100)).max(20),
  location: z.strictObject({
    street: optionalText(),
    city: requiredText('City', 100),
    state: optionalText(100),
    zipCode: optionalText(20),
    country: requiredText('Country', 100),
  }),
  academicProfile: z.strictObject({
    rank: optionalText(100),
    numberOfPublications: z.number().int().min(0).max(100_000),
  }),
  contactInformation: z.strictObject({
    email: emailSchema,
    mobile: optionalText(40),
    website: z
      .string()
      .trim()
      .max(300)
      .refine(
        (v) => v === '' || /^https?:\/\/[^\s]+$/i.test(v),
        'Website must start with http:// or https://',
      ),
  }),
  workingHours: z.strictObject({ weekdays: optionalText(100), weekends: optionalText(100) }),
});
export type ProviderInput = z.infer<typeof providerInputSchema>;

/** A directory provider as the admin area shows it: retired ones too, and the linked account. */
export const adminProviderSchema = providerSchema.extend({
  retiredAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  linkedUser: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }).nullable(),
  /** An external AI vendor's webhook, when the provider is one (contracts/vendors.ts). */
  vendor: vendorSummarySchema.nullable(),
});
export type AdminProvider = z.infer<typeof adminProviderSchema>;
export const adminProviderListSchema = z.object({ data: z.array(adminProviderSchema) });
export const adminProviderResponseSchema = z.object({ message: z.string(), data: adminProviderSchema });
/** Link a directory provider to a verified, active professional account by its email. */
export const linkProviderBodySchema = z.strictObject({ email: emailSchema });

// ---------------------------------------------------------------- shares

export const SHARE_EMAIL_MESSAGE = 'Please enter a valid email address';
export const SHARE_NOTHING_SELECTED_MESSAGE = 'Please select providers or enter an email address';
export const SHARING_OFF_MESSAGE =
  'Sharing is turned off. Turn on Share Medical Records in Settings (Privacy & Sharing) to share your studies.';

/** Shares a de-identified copy of the study (DICOM PS3.15; made first when there is none yet). */
const deidentified = z.boolean().optional();
export const createShareBodySchema = z.union([
  z.strictObject({ email: emailSchema, studyId: uuid, addProvider: z.boolean().optional(), deidentified }),
  z.strictObject({ providerId: uuid, studyId: uuid, deidentified }),
]);
export type CreateShareBody = z.infer<typeof createShareBodySchema>;

/** A share as its owner sees it (Currently Shared With, provider-side lists). */
export const shareSchema = z.object({
  _id: z.string(),
  id: z.string(),
  email: z.string(),
  targetUser: z.object({ _id: z.string(), email: z.string(), name: z.string().nullable() }).nullable(),
  createdAt: z.string(),
  /** Whether the recipient has an account that receives it yet. */
  accepted: z.boolean(),
  provider: providerSchema.nullable(),
  study: z.object({
    _id: z.string(),
    studyId: z.string().nullable(),
    metadata: z.object({
      studyDescription: z.string().nullable(),
      patientName: z.string().nullable(),
      modality: z.string().nullable(),
      studyDate: z.string().nullable(),
    }),
  }),
});
export type Share = z.infer<typeof shareSchema>;
export const shareListSchema = z.object({ data: z.array(shareSchema) });
/** The share made; or, for a de-identified share whose copy is still being made, only the message. */
export const createShareResponseSchema = z.object({
  message: z.string(),
  data: shareSchema.optional(),
  pending: z.boolean().optional(),
  /** The job making the copy, while `pending`. */
  jobId: z.string().optional(),
});
export type CreateShareResponse = z.infer<typeof createShareResponseSchema>;

/** One row of the Shared Studies tab: the study plus who shared it and when. */
export const sharedStudySchema = z.object({
  _id: z.string(),
  /** When the study was shared with the caller (the share itself is the owner's to manage). */
  sharedAt: z.string(),
  owner: z.object({ name: z.string().nullable(), email: z.string() }),
  study: studyListItemSchema,
});
export type SharedStudy = z.infer<typeof sharedStudySchema>;
export const sharedStudyListSchema = z.object({
  data: z.array(sharedStudySchema),
  /** The whole list's length, when a page was asked for (listPageQuerySchema). */
  total: z.number().int().optional(),
});

export const linkShareBodySchema = z.strictObject({
  targetUser: uuid,
  /** The signed token of the emailed share link: proves the email was received. */
  token: z.string().max(200).optional(),
});

// ---------------------------------------------------------------- ownership

export const transferOwnershipBodySchema = z.union([
  z.strictObject({ studyId: uuid, requesterEmail: emailSchema }),
  z.strictObject({ studyId: uuid, requesterId: uuid }),
]);
export const requestOwnershipBodySchema = z.strictObject({ studyId: uuid });
export const ownershipResponseSchema = z.object({ message: z.string(), newOwnerId: z.string().optional() });

// ---------------------------------------------------------------- invitations

export const inviteUserBodySchema = z.strictObject({ email: emailSchema });
export const inviteLinkSchema = z.object({
  id: z.string(),
  url: z.string(),
  expiresAt: z.string(),
});
export type InviteLink = z.infer<typeof inviteLinkSchema>;
/** What an invitation token says, for the page it lands on. */
export const invitationCheckSchema = z.object({
  valid: z.boolean(),
  kind: z.enum(['direct_upload', 'provider']).nullable(),
  inviterName: z.string().nullable(),
  /** Why the token cannot be used (invalid, expired or revoked), for the page to show. */
  message: z.string().nullable().optional(),
  /**
   * Room left in the inviter's storage (a shared upload is charged to them), in bytes and as their
   * limit in GB; null when the invitation is not for uploads or is not valid.
   */
  room: z.object({ remainingBytes: z.number(), maxStorageGB: z.number() }).nullable().optional(),
});
export type InvitationCheck = z.infer<typeof invitationCheckSchema>;
export const invitationCheckQuerySchema = z.object({ token: z.string().min(1).max(200) });

/** How long an invite link or emailed invitation stays usable. */
export const INVITATION_DAYS = 30;
export const INVITATION_INVALID_MESSAGE =
  'This invitation link is no longer valid. Ask the person who invited you for a new link.';
/** The Invite User dialog's texts. */
export const INVITE_FAILED_MESSAGE = 'Failed to send invitation. Please try again.';
export const inviteSentMessage = (email: string) => `Invite sent to ${email}`;

// ---------------------------------------------------------------- access receipts

export const accessReceiptsSchema = z.object({
  /** Who can open the study now, besides its owner. */
  current: z.array(
    z.object({
      shareId: z.string(),
      email: z.string(),
      name: z.string().nullable(),
      accepted: z.boolean(),
      sharedAt: z.string(),
      firstOpenedAt: z.string().nullable(),
    }),
  ),
  /** Opens, downloads, shares and revocations, newest first. */
  events: z.array(
    z.object({
      at: z.string(),
      action: z.string(),
      actor: z.string(),
      detail: z.string().nullable(),
    }),
  ),
});
export type AccessReceipts = z.infer<typeof accessReceiptsSchema>;
