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
  status: text('status', { enum: ['queued', 'running', 'delivered', 'failed'] }).notNull(),
  attempts: integer('attempts').notNull().default(0),
  /** Why the last attempt failed (no patient data: an error class and message from our own code). */
  lastError: text('last_error'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
