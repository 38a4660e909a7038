import { sql } from 'drizzle-orm';
import { boolean, customType, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from './users';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/**
 * Help centre articles (/help). `content` is HTML already sanitised on save; `bodyText` is its plain
 * text, kept for full-text search, which reads the generated `search` column (title weighs most).
 * Seeded articles carry a `seedKey`, so a start adds only the ones still missing and an article an
 * admin deleted (soft: `deletedAt`) does not come back.
 */
export const helpArticles = pgTable(
  'help_articles',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    seedKey: text('seed_key'),
    title: text('title').notNull(),
    description: text('description').notNull(),
    content: text('content').notNull(),
    bodyText: text('body_text').notNull(),
    category: text('category').notNull(),
    featured: boolean('featured').notNull().default(false),
    published: boolean('published').notNull().default(false),
    search: tsvector('search')
      .notNull()
      .generatedAlwaysAs(
        sql`setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', coalesce(description, '')), 'B') || setweight(to_tsvector('english', coalesce(body_text, '')), 'C')`,
      ),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('help_articles_seed_key').on(t.seedKey),
    index('help_articles_search_idx').using('gin', t.search),
    index('help_articles_listing_idx').on(t.published, t.category),
  ],
);
