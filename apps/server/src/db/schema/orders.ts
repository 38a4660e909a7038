import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  pgView,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { providers } from './sharing';
import { studies } from './studies';
import { users } from './users';

/**
 * The analysis service catalogue (/services/available, /analysis/services). Seeded on first start
 * when missing; a retired service is no longer offered but stays on the orders that bought it.
 */
export const analysisServices = pgTable(
  'analysis_services',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    /** snake_case, e.g. `ai_analysis`. */
    scope: text('scope').notNull(),
    description: text('description').notNull(),
    typicalTime: text('typical_time').notNull(),
    requiredData: text('required_data')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    type: text('type', { enum: ['AI', 'Expert', 'Combined'] }).notNull(),
    supportedModalities: text('supported_modalities')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    sortOrder: integer('sort_order').notNull().default(0),
    /** The price a new offer of this service starts from, in cents (the product's list price). */
    defaultPriceCents: integer('default_price_cents').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    retiredAt: timestamp('retired_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('analysis_services_name_key').on(t.name)],
);

/** A provider offering a service, at its price in cents. */
export const serviceOffers = pgTable(
  'service_offers',
  {
    serviceId: uuid('service_id')
      .notNull()
      .references(() => analysisServices.id, { onDelete: 'cascade' }),
    providerId: uuid('provider_id')
      .notNull()
      .references(() => providers.id, { onDelete: 'cascade' }),
    priceCents: integer('price_cents').notNull(),
    /** The provider's own turnaround; null: the service's typical time. */
    turnaround: text('turnaround'),
    /** The modalities the provider reads for this service; null: all of the service's. */
    modalities: text('modalities').array(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    retiredAt: timestamp('retired_at', { withTimezone: true }),
    /** Who retired it: the professional withdrawing it, or an admin (only an admin restores those). */
    retiredBy: text('retired_by', { enum: ['provider', 'admin'] }),
  },
  (t) => [
    primaryKey({ columns: [t.serviceId, t.providerId] }),
    index('service_offers_provider_idx').on(t.providerId),
  ],
);

/**
 * An order of an analysis (the specification's purchase). Price and state are the server's: the
 * cost is copied from the offer when ordered, and a paid order points at the one payment that paid
 * it (unique, so a payment creates or pays at most one order).
 */
export const orders = pgTable(
  'orders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    serviceId: uuid('service_id')
      .notNull()
      .references(() => analysisServices.id, { onDelete: 'restrict' }),
    providerId: uuid('provider_id')
      .notNull()
      .references(() => providers.id, { onDelete: 'restrict' }),
    studyId: uuid('study_id').references(() => studies.id, { onDelete: 'set null' }),
    costCents: integer('cost_cents').notNull(),
    status: text('status', {
      enum: [
        'awaiting_payment',
        'pending_approval',
        'pending_data_upload',
        'in_progress',
        'completed',
        'declined',
        'cancelled',
        'refunded',
      ],
    }).notNull(),
    /** The payments row that paid this order. */
    paymentId: uuid('payment_id'),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    /** Why a paid order was refunded (declined, not accepted in time, ...), as the server put it. */
    refundReason: text('refund_reason'),
    refundedAt: timestamp('refunded_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('orders_user_idx').on(t.userId, t.createdAt),
    uniqueIndex('orders_payment_key').on(t.paymentId),
  ],
);

/**
 * One card payment attempt as the processor knows it (`intentId`). What it is for is fixed when
 * it is created: a new purchase (service, provider, study) or an order waiting for payment. Only
 * the card's brand and last four digits are kept.
 */
export const payments = pgTable(
  'payments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    processor: text('processor', { enum: ['sandbox', 'stripe'] }).notNull(),
    intentId: text('intent_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    serviceId: uuid('service_id')
      .notNull()
      .references(() => analysisServices.id, { onDelete: 'restrict' }),
    providerId: uuid('provider_id')
      .notNull()
      .references(() => providers.id, { onDelete: 'restrict' }),
    studyId: uuid('study_id').references(() => studies.id, { onDelete: 'set null' }),
    orderId: uuid('order_id').references(() => orders.id, { onDelete: 'set null' }),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull(),
    /** The processor's status, as last seen. */
    status: text('status').notNull(),
    cardBrand: text('card_brand'),
    cardLast4: text('card_last4'),
    succeededAt: timestamp('succeeded_at', { withTimezone: true }),
    /** What the processor refunded of it (OrdersService.refundOrder, or an extra payment refunded). */
    refundedCents: integer('refunded_cents').notNull().default(0),
    refundId: text('refund_id'),
    refundedAt: timestamp('refunded_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('payments_intent_key').on(t.processor, t.intentId),
    index('payments_user_idx').on(t.userId),
  ],
);

/**
 * The embedded sandbox card processor's own records (the default payments port): what a card
 * processor would hold. The client secret is kept only as a SHA-256 hash; no card number, ever.
 */
export const sandboxPaymentIntents = pgTable('sandbox_payment_intents', {
  id: text('id').primaryKey(),
  secretHash: text('secret_hash').notNull(),
  amountCents: integer('amount_cents').notNull(),
  currency: text('currency').notNull(),
  status: text('status').notNull(),
  cardBrand: text('card_brand'),
  cardLast4: text('card_last4'),
  lastErrorCode: text('last_error_code'),
  amountRefundedCents: integer('amount_refunded_cents').notNull().default(0),
  metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The sandbox processor's refunds. The id comes from the refund's idempotency key, so asking
 * twice refunds once.
 */
export const sandboxRefunds = pgTable(
  'sandbox_refunds',
  {
    id: text('id').primaryKey(),
    intentId: text('intent_id')
      .notNull()
      .references(() => sandboxPaymentIntents.id, { onDelete: 'cascade' }),
    amountCents: integer('amount_cents').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sandbox_refunds_intent_idx').on(t.intentId)],
);

/**
 * A patient's stars (1-5) for one of their completed orders, counted for the order's provider.
 * One per order; its author may change it for 30 days (contracts/directory.ts); an admin may hide
 * its comment, never its stars.
 */
export const providerRatings = pgTable(
  'provider_ratings',
  {
    orderId: uuid('order_id')
      .primaryKey()
      .references(() => orders.id, { onDelete: 'cascade' }),
    providerId: uuid('provider_id')
      .notNull()
      .references(() => providers.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    stars: integer('stars').notNull(),
    comment: text('comment'),
    commentHiddenAt: timestamp('comment_hidden_at', { withTimezone: true }),
    commentHiddenBy: uuid('comment_hidden_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('provider_ratings_provider_idx').on(t.providerId),
    check('provider_ratings_stars', sql`${t.stars} between 1 and 5`),
  ],
);

/**
 * The one home of "who can deliver what" (migration 0017_trust.sql): per provider, whether it
 * produces automated reports (the platform's own analysis, or a vendor with a webhook and a secret)
 * and whether a person reads for it (its linked professional is active, has confirmed the email and
 * has not paused their offers).
 */
export const providerFulfillers = pgView('provider_fulfillers', {
  providerId: uuid('provider_id').notNull(),
  automates: boolean('automates').notNull(),
  reads: boolean('reads').notNull(),
}).existing();

/**
 * Offers that may be sold right now: offer, service and provider live, a professional's profile
 * published, and someone to deliver it (an automated service needs `automates`, the others `reads`).
 * GET /api/services lists these and a payment is taken only for one of these.
 */
export const sellableOffers = pgView('sellable_offers', {
  serviceId: uuid('service_id').notNull(),
  providerId: uuid('provider_id').notNull(),
  priceCents: integer('price_cents').notNull(),
  turnaround: text('turnaround').notNull(),
  modalities: text('modalities').array().notNull(),
}).existing();
