import { integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { orders } from './orders';

/**
 * The automated analysis of an order (AI Quick Analysis, and the AI part of the Complete Analysis
 * Package): one row per order, so a paid order is queued once and its attempts are counted across
 * the job's retries (the last failed attempt refunds the order).
 */
export const analysisRuns = pgTable('analysis_runs', {
  orderId: uuid('order_id')
    .primaryKey()
    .references(() => orders.id, { onDelete: 'cascade' }),
  /** `sent`: handed to the provider's external AI vendor, whose report is awaited (modules/vendors). */
  status: text('status', { enum: ['queued', 'running', 'sent', 'delivered', 'failed'] }).notNull(),
  attempts: integer('attempts').notNull().default(0),
  /** Why the last attempt failed (no patient data: an error class and message from our own code). */
  lastError: text('last_error'),
  /** When the order was handed to an external AI vendor (its report is awaited from then). */
  sentAt: timestamp('sent_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
