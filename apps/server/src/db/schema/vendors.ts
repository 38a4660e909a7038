import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { orders } from './orders';
import { providers } from './sharing';
import { studies } from './studies';

/**
 * An external AI vendor's DICOMweb credential: an opaque bearer token (only its SHA-256 is kept)
 * that reads one study for one order. The access rule (modules/access) admits it only while the
 * order awaits the vendor; it is also revoked when the vendor reports or the order ends.
 */
export const vendorCredentials = pgTable(
  'vendor_credentials',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    providerId: uuid('provider_id')
      .notNull()
      .references(() => providers.id, { onDelete: 'cascade' }),
    studyId: uuid('study_id')
      .notNull()
      .references(() => studies.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('vendor_credentials_token_key').on(t.tokenHash),
    index('vendor_credentials_order_idx').on(t.orderId),
  ],
);

/**
 * Signatures of vendor callbacks already received (a SHA-256 of the signature header), so a replayed
 * request is refused. Entries older than the timestamp tolerance are useless and are removed.
 */
export const vendorCallbacks = pgTable('vendor_callbacks', {
  signatureHash: text('signature_hash').primaryKey(),
  providerId: uuid('provider_id')
    .notNull()
    .references(() => providers.id, { onDelete: 'cascade' }),
  orderId: uuid('order_id'),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
});
