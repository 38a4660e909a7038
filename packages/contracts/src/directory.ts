import { z } from 'zod';
import { servicePriceSchema } from './catalogue-admin';

/**
 * The provider directory's trust rules: a verified professional's own profile and offers (their
 * workspace, /professional/profile), patients' ratings of completed orders, and what admins do
 * with both. The directory holds only verified professionals who published a profile,
 * organisations an admin added, and the platform's own automated analysis.
 */

const uuid = z.string().uuid();
const optionalText = (max: number) => z.string().trim().max(max, `At most ${max} characters`);

/** How long after a rating is first given its author may still change it. */
export const RATING_EDIT_DAYS = 30;
export const RATING_COMMENT_MAX = 1000;

// ---------------------------------------------------------------- a professional's profile

/** What a professional completes before publishing; name, specialty, hospital and licence come from their registration. */
export const professionalProfileInputSchema = z.strictObject({
  description: optionalText(2000),
  yearsOfExperience: z
    .string()
    .trim()
    .regex(/^\d{1,2}$/, 'Years of experience must be a whole number from 0 to 99'),
  credentials: z.array(z.string().trim().min(1).max(100)).max(20, 'At most 20 credentials'),
  workingHours: z.strictObject({ weekdays: optionalText(100), weekends: optionalText(100) }),
  location: z.strictObject({
    street: optionalText(200),
    city: z.string().trim().min(1, 'City is required').max(100),
    state: optionalText(100),
    zipCode: optionalText(20),
    country: z.string().trim().min(1, 'Country is required').max(100),
  }),
  /** Contact details shown in the directory; each is optional (the account email is never shown unless given here). */
  contact: z.strictObject({
    email: z.union([z.literal(''), z.string().trim().email('Please enter a valid email address').max(254)]),
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
});
export type ProfessionalProfileInput = z.infer<typeof professionalProfileInputSchema>;

export const professionalProfileSchema = z.object({
  providerId: z.string(),
  name: z.string(),
  specialty: z.string().nullable(),
  hospital: z.string().nullable(),
  position: z.string().nullable(),
  licenseState: z.string(),
  verifiedAt: z.string(),
  description: z.string(),
  yearsOfExperience: z.string(),
  credentials: z.array(z.string()),
  workingHours: z.object({ weekdays: z.string(), weekends: z.string() }),
  location: z.object({
    street: z.string(),
    city: z.string(),
    state: z.string(),
    zipCode: z.string(),
    country: z.string(),
  }),
  contact: z.object({ email: z.string(), mobile: z.string(), website: z.string() }),
  /** Listed in the directory since then; null while unpublished. */
  publishedAt: z.string().nullable(),
  /** While set, none of this professional's offers is sold (orders waiting for them are refunded). */
  offersPausedAt: z.string().nullable(),
  /** What is missing before the profile can be published (empty when it can). */
  missing: z.array(z.string()),
  rating: z.number().nullable(),
  ratingCount: z.number().int(),
});
export type ProfessionalProfile = z.infer<typeof professionalProfileSchema>;

export const publishProfileBodySchema = z.strictObject({ published: z.boolean() });
export const pauseOffersBodySchema = z.strictObject({ paused: z.boolean() });

// ---------------------------------------------------------------- offers

/**
 * A professional's offer of a service (Expert and Combined services: an automated service is sold
 * by the platform or a vendor). Price in dollars; turnaround and modalities narrow the service's.
 */
export const offerSettingsSchema = z.strictObject({
  price: servicePriceSchema,
  turnaround: z.string().trim().min(1, 'Turnaround is required').max(60, 'At most 60 characters'),
  modalities: z.array(z.string().trim().min(1).max(40)).min(1, 'Choose at least one modality').max(20),
});
export type OfferSettings = z.infer<typeof offerSettingsSchema>;

/** One service as a professional's workspace shows it: offered or not, and on what terms. */
export const myOfferSchema = z.object({
  serviceId: z.string(),
  serviceName: z.string(),
  serviceType: z.enum(['AI', 'Expert', 'Combined']),
  /** The service's own turnaround and modalities: what a new offer starts from. */
  typicalTime: z.string(),
  supportedModalities: z.array(z.string()),
  /** The price a new offer starts from (dollars). */
  defaultPrice: z.number(),
  offer: z
    .object({
      price: z.number(),
      turnaround: z.string(),
      modalities: z.array(z.string()),
      /** 'live' (sold while the profile is published and offers are not paused), 'withdrawn' by the professional, 'retired' by an admin. */
      status: z.enum(['live', 'withdrawn', 'retired']),
      updatedAt: z.string(),
    })
    .nullable(),
});
export type MyOffer = z.infer<typeof myOfferSchema>;
export const myOfferListSchema = z.array(myOfferSchema);

// ---------------------------------------------------------------- ratings

export const ratingBodySchema = z.strictObject({
  stars: z
    .number({ error: 'Choose from 1 to 5 stars' })
    .int('Choose from 1 to 5 stars')
    .min(1, 'Choose from 1 to 5 stars')
    .max(5, 'Choose from 1 to 5 stars'),
  comment: optionalText(RATING_COMMENT_MAX).optional(),
});
export type RatingBody = z.infer<typeof ratingBodySchema>;

export const orderRatingSchema = z.object({
  orderId: z.string(),
  stars: z.number().int(),
  comment: z.string().nullable(),
  editableUntil: z.string(),
});
export type OrderRating = z.infer<typeof orderRatingSchema>;

/** A rating with its comment as the directory shows it (hidden comments are left out). */
export const publicRatingSchema = z.object({
  stars: z.number().int(),
  comment: z.string().nullable(),
  serviceName: z.string(),
  createdAt: z.string(),
});
export const providerRatingsSchema = z.object({
  rating: z.number().nullable(),
  ratingCount: z.number().int(),
  data: z.array(publicRatingSchema),
});

/** Admin → Directory → Ratings: every rating, to hide a comment that should not be shown. */
export const adminRatingSchema = z.object({
  orderId: z.string(),
  providerId: z.string(),
  providerName: z.string(),
  serviceName: z.string(),
  stars: z.number().int(),
  comment: z.string().nullable(),
  commentHidden: z.boolean(),
  authorEmail: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AdminRating = z.infer<typeof adminRatingSchema>;
export const adminRatingListSchema = z.array(adminRatingSchema);
export const hideCommentBodySchema = z.strictObject({ hidden: z.boolean() });

// ---------------------------------------------------------------- admin: offers

/** Admin → Services: retire an offer (it stops being sold) or restore it. */
export const offerStatusBodySchema = z.strictObject({ retired: z.boolean() });

export const ratingIdParamsSchema = z.object({ orderId: uuid });
