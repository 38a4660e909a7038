import { and, asc, count, desc, eq, getTableColumns, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { helpArticles } from '../../db/schema/index';

export type HelpArticleRow = typeof helpArticles.$inferSelect;
export type NewHelpArticleRow = Omit<typeof helpArticles.$inferInsert, 'search'>;

export interface PublishedFilter {
  category?: string;
  featured?: boolean;
  /** A prefix tsquery in to_tsquery syntax built from letters and digits only (see help.service.ts). */
  tsquery?: string;
}

const live = isNull(helpArticles.deletedAt);
const visible = and(live, eq(helpArticles.published, true))!;

// The generated tsvector is only for searching: never read it back.
const { search: _search, ...columns } = getTableColumns(helpArticles);
type Row = Omit<HelpArticleRow, 'search'>;

/** Help centre articles: what users read and what admins write. */
export function createHelpRepository(db: Db) {
  const conditions = (filter: PublishedFilter): SQL[] => {
    const where: SQL[] = [visible];
    if (filter.category !== undefined) where.push(eq(helpArticles.category, filter.category));
    if (filter.featured !== undefined) where.push(eq(helpArticles.featured, filter.featured));
    if (filter.tsquery !== undefined)
      where.push(sql`${helpArticles.search} @@ to_tsquery('english', ${filter.tsquery})`);
    return where;
  };

  return {
    /** One page of published articles, best match first when searching, else most recently updated. */
    async listPublished(
      filter: PublishedFilter,
      page: { offset: number; limit: number },
    ): Promise<{ rows: Row[]; total: number }> {
      const where = and(...conditions(filter));
      const [totalRow] = await db.select({ n: count() }).from(helpArticles).where(where);
      const total = Number(totalRow?.n ?? 0);
      if (total === 0 || page.offset >= total) return { rows: [], total };
      const order =
        filter.tsquery !== undefined
          ? [
              desc(sql`ts_rank(${helpArticles.search}, to_tsquery('english', ${filter.tsquery}))`),
              desc(helpArticles.updatedAt),
            ]
          : [desc(helpArticles.updatedAt)];
      const rows = await db
        .select(columns)
        .from(helpArticles)
        .where(where)
        .orderBy(...order, asc(helpArticles.title), asc(helpArticles.id))
        .limit(page.limit)
        .offset(page.offset);
      return { rows, total };
    },

    async findPublished(id: string): Promise<Row | undefined> {
      const [row] = await db
        .select(columns)
        .from(helpArticles)
        .where(and(visible, eq(helpArticles.id, id)));
      return row;
    },

    /** Published articles per category, and how many are featured. */
    async counts(): Promise<{ categories: Array<{ category: string; n: number }>; featured: number }> {
      const categories = await db
        .select({ category: helpArticles.category, n: count() })
        .from(helpArticles)
        .where(visible)
        .groupBy(helpArticles.category);
      const [featured] = await db
        .select({ n: count() })
        .from(helpArticles)
        .where(and(visible, eq(helpArticles.featured, true)));
      return {
        categories: categories.map((c) => ({ category: c.category, n: Number(c.n) })),
        featured: Number(featured?.n ?? 0),
      };
    },

    // ------------------------------------------------------------------ authoring

    /** Every article not deleted, drafts included, most recently updated first. */
    async listAll(): Promise<Row[]> {
      return db
        .select(columns)
        .from(helpArticles)
        .where(live)
        .orderBy(desc(helpArticles.updatedAt), asc(helpArticles.title));
    },

    async findLive(id: string): Promise<Row | undefined> {
      const [row] = await db
        .select(columns)
        .from(helpArticles)
        .where(and(live, eq(helpArticles.id, id)));
      return row;
    },

    async insert(row: NewHelpArticleRow): Promise<Row> {
      const [created] = await db.insert(helpArticles).values(row).returning(columns);
      return created!;
    },

    async update(id: string, changes: Partial<NewHelpArticleRow>): Promise<Row | undefined> {
      const [updated] = await db
        .update(helpArticles)
        .set(changes)
        .where(and(live, eq(helpArticles.id, id)))
        .returning(columns);
      return updated;
    },

    /** Seeded articles that are not there yet (deleted ones stay deleted); returns how many were new. */
    async insertSeeds(rows: NewHelpArticleRow[]): Promise<number> {
      if (rows.length === 0) return 0;
      const created = await db
        .insert(helpArticles)
        .values(rows)
        .onConflictDoNothing({ target: helpArticles.seedKey })
        .returning({ id: helpArticles.id });
      return created.length;
    },

    async seedKeys(): Promise<Set<string>> {
      const rows = await db.select({ key: helpArticles.seedKey }).from(helpArticles);
      return new Set(rows.flatMap((r) => (r.key ? [r.key] : [])));
    },
  };
}

export type HelpRepository = ReturnType<typeof createHelpRepository>;
