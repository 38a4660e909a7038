import { z } from 'zod';
import { serviceTypeSchema } from './orders';

/**
 * Admin → Services: the analysis service catalogue as admins curate it. Prices travel in dollars
 * (two decimals) like GET /api/services; the server stores cents. A re-price applies to orders made
 * afterwards only: an order keeps the cost it was made at.
 */

const uuid = z.string().uuid();
const text = (max: number, label: string) =>
  z.string().trim().min(1, `${label} is required`).max(max, `${label} must be at most ${max} characters`);

/** The highest price the catalogue accepts, in dollars. */
export const MAX_SERVICE_PRICE = 100_000;

/** Dollars, more than zero, at most two decimals ('49.99'). */
export const servicePriceSchema = z
  .number({ error: 'Enter a price in dollars' })
  .refine((v) => Number.isFinite(v), 'Enter a price in dollars')
  .refine((v) => v > 0, 'The price must be more than $0.00')
  .refine((v) => v <= MAX_SERVICE_PRICE, `The price must be at most $${MAX_SERVICE_PRICE}`)
  .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, 'Use at most two decimals (e.g. 49.99)');

/** Cents of a validated dollar price. */
export const priceToCents = (price: number) => Math.round(price * 100);

/** The admin form of a service: everything GET /api/services shows of it except its offers. */
export const serviceInputSchema = z.strictObject({
  name: text(120, 'Name'),
  /** snake_case, e.g. `ai_analysis`; the pages show it with spaces and capitals. */
  scope: z
    .string()
    .trim()
    .min(1, 'Scope is required')
    .max(60, 'Scope must be at most 60 characters')
    .regex(/^[a-z][a-z0-9_]*$/, 'Use lowercase letters, digits and underscores (e.g. ai_analysis)'),
  description: text(2000, 'Description'),
  typicalTime: text(60, 'Typical time'),
  requiredData: z.array(text(200, 'Each required data item')).max(20, 'At most 20 items'),
  type: serviceTypeSchema,
  supportedModalities: z
    .array(text(40, 'Each modality'))
    .min(1, 'Name at least one modality')
    .max(20, 'At most 20 modalities'),
});
export type ServiceInput = z.infer<typeof serviceInputSchema>;

/** Add an offer: a directory provider and its price (adding a retired offer again brings it back). */
export const offerInputSchema = z.strictObject({ providerId: uuid, price: servicePriceSchema });
export type OfferInput = z.infer<typeof offerInputSchema>;

/** Edit an offer (new orders only): its price, and optionally its turnaround and modalities. */
export const offerPriceSchema = z.strictObject({
  price: servicePriceSchema,
  turnaround: z.string().trim().min(1, 'Turnaround is required').max(60).optional(),
  modalities: z
    .array(z.string().trim().min(1).max(40))
    .min(1, 'Choose at least one modality')
    .max(20)
    .optional(),
});
export type OfferPrice = z.infer<typeof offerPriceSchema>;

export const adminOfferSchema = z.object({
  providerId: z.string(),
  providerName: z.string(),
  /** The directory entry itself is retired (Admin → Providers): the offer is not shown either. */
  providerRetired: z.boolean(),
  /** 'professional' (their own offer, set in their workspace), 'organisation' or 'automated'. */
  providerKind: z.enum(['professional', 'organisation', 'automated']),
  /** Dollars. */
  price: z.number(),
  turnaround: z.string(),
  modalities: z.array(z.string()),
  /**
   * Sold right now (GET /api/services lists it): live, and someone can deliver it. A live offer
   * that is not sellable lacks a fulfiller (no active linked professional, paused, no vendor).
   */
  sellable: z.boolean(),
  retiredAt: z.string().nullable(),
  /** Who retired it: the professional ('provider') or an admin. */
  retiredBy: z.enum(['provider', 'admin']).nullable(),
  demo: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AdminOffer = z.infer<typeof adminOfferSchema>;

export const adminServiceSchema = z.object({
  id: z.string(),
  name: z.string(),
  scope: z.string(),
  description: z.string(),
  typicalTime: z.string(),
  requiredData: z.array(z.string()),
  type: serviceTypeSchema,
  supportedModalities: z.array(z.string()),
  /** The price a new offer of this service starts from (dollars). */
  defaultPrice: z.number(),
  retiredAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Every offer, retired ones too, cheapest live ones first. */
  offers: z.array(adminOfferSchema),
});
export type AdminService = z.infer<typeof adminServiceSchema>;

export const adminServiceListSchema = z.object({ data: z.array(adminServiceSchema) });
export const adminServiceResponseSchema = z.object({ message: z.string(), data: adminServiceSchema });
