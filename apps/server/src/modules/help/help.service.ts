import { adminChanges, type RecentAdmin, type RecentSignInRule } from '../admin';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import sharp from 'sharp';
import {
  HELP_CATEGORIES,
  HELP_IMAGE_PATH,
  type AdminHelpArticle,
  type HelpArticle,
  type HelpArticleInput,
  type HelpArticleList,
  type HelpArticlePatch,
  type HelpCounts,
  type HelpListQuery,
} from '@mi/contracts/help';
import { AppError } from '../../http/app-error';
import type { ObjectStorage } from '../../ports/storage/storage';
import { actorAudit, type AuditRecorder } from '../audit';
import type { RequestMeta } from '../../http/request-meta';
import { articleText, HELP_IMAGE_NAME, sanitizeArticleHtml } from './help-html';
import type { HelpArticleRow, HelpRepository, NewHelpArticleRow } from './help.repository';
import { HELP_SEED_ARTICLES, readSeedImage, type SeedArticle } from './seed/help-seed';

export const ARTICLE_NOT_FOUND = 'Article Not Found';
export const IMAGE_UNUSABLE =
  'This file is not an image we can use. Upload a PNG, JPEG, WebP or GIF picture.';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Search words kept from one query, and the longest word; the rest of the input is ignored. */
const MAX_TERMS = 12;
const MAX_TERM_LENGTH = 60;
/** Images are re-encoded no wider or taller than this. */
const IMAGE_MAX_SIDE = 1600;
/** Where article images live in object storage. */
const imageKey = (name: string) => `help/images/${name}`;
const SEED_IMAGES = new Set(HELP_SEED_ARTICLES.flatMap((a) => a.images));

type Row = Omit<HelpArticleRow, 'search'>;

/**
 * A prefix query for to_tsquery from what the user typed: only runs of letters and digits survive,
 * so no tsquery operator ever comes from the input, and each word matches as a prefix ("recov"
 * finds "recovery"). Undefined when nothing searchable is left.
 */
export function toPrefixQuery(q: string): string | undefined {
  const terms = (q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .slice(0, MAX_TERMS)
    .map((t) => t.slice(0, MAX_TERM_LENGTH));
  return terms.length ? terms.map((t) => `${t}:*`).join(' & ') : undefined;
}

function toArticle(row: Row): HelpArticle {
  return {
    _id: row.id,
    title: row.title,
    description: row.description,
    content: row.content,
    category: row.category,
    featured: row.featured,
    updatedAt: row.updatedAt.toISOString(),
  };
}

function toAdminArticle(row: Row): AdminHelpArticle {
  return {
    ...toArticle(row),
    published: row.published,
    createdAt: row.createdAt.toISOString(),
    publishedAt: row.publishedAt?.toISOString() ?? null,
  };
}

/** Known categories first, in their order; any other alphabetically after them. */
export function orderCategories(names: Iterable<string>): string[] {
  const rank = (c: string) => {
    const i = (HELP_CATEGORIES as readonly string[]).indexOf(c);
    return i === -1 ? HELP_CATEGORIES.length : i;
  };
  return [...new Set(names)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

export interface HelpDeps {
  repo: HelpRepository;
  storage: ObjectStorage;
  audit: AuditRecorder;
  /** The recent sign-in rule of every admin change (modules/admin/recent-sign-in.ts). */
  requireRecentSignIn: RecentSignInRule;
  now: () => Date;
}

type Actor = { id: string; role: string | null };

/** Audit records, an article's stored columns (as edited or seeded), and a live article by id. */
function createHelpTools(deps: HelpDeps) {
  const { repo, storage } = deps;

  const record = actorAudit(deps.audit);
  const audit = (
    actor: Actor,
    action: string,
    targetId: string,
    meta: RequestMeta | undefined,
    details?: Record<string, unknown>,
  ) => record(actor, action, { type: 'help_article', id: targetId }, meta, details);

  /** The stored columns of an article as the editor sent it. */
  function columns(input: HelpArticleInput) {
    const content = sanitizeArticleHtml(input.content);
    return {
      title: input.title,
      description: input.description,
      content,
      bodyText: articleText(content),
      category: input.category,
      featured: input.featured,
      published: input.published,
    };
  }

  async function requireLive(id: string): Promise<Row> {
    const row = UUID.test(id) ? await repo.findLive(id) : undefined;
    if (!row) throw new AppError('NOT_FOUND', ARTICLE_NOT_FOUND);
    return row;
  }

  function seedRow(seed: SeedArticle, index: number, at: Date): NewHelpArticleRow {
    const { published, ...rest } = columns({ ...seed, published: true });
    // Seeds keep the catalogue's order on the most-recent-first list: the first is the newest.
    const updatedAt = new Date(at.getTime() - index * 60_000);
    return { ...rest, published, seedKey: seed.key, createdAt: updatedAt, updatedAt, publishedAt: updatedAt };
  }

  return { repo, storage, record, audit, columns, requireLive, seedRow };
}
type HelpTools = ReturnType<typeof createHelpTools>;

/** The Help Center as everyone reads it: articles, categories, counts and screenshots, seeded on first start. */
function createHelpReading(deps: HelpDeps, tools: HelpTools) {
  const { repo, storage, seedRow } = tools;
  return {
    /**
     * First start (and every start after, from seed.ts): adds the seeded articles still missing.
     * Their screenshots reach object storage when first asked for (`image`). Safe for several
     * processes starting at once.
     */
    async ensureArticles(): Promise<number> {
      const have = await repo.seedKeys();
      const missing = HELP_SEED_ARTICLES.map((seed, i) => ({ seed, i })).filter(
        ({ seed }) => !have.has(seed.key),
      );
      if (missing.length === 0) return 0;
      const at = deps.now();
      return repo.insertSeeds(missing.map(({ seed, i }) => seedRow(seed, i, at)));
    },

    /** GET /api/kb: an unknown category or a page past the end is an empty page, not an error. */
    async list(query: HelpListQuery): Promise<HelpArticleList> {
      const { page, limit } = query;
      let tsquery: string | undefined;
      if (query.q) {
        tsquery = toPrefixQuery(query.q);
        if (!tsquery) return { data: [], page, totalPages: 0 };
      }
      const { rows, total } = await repo.listPublished(
        { category: query.category || undefined, featured: query.featured, tsquery },
        { offset: (page - 1) * limit, limit },
      );
      return { data: rows.map(toArticle), page, totalPages: Math.ceil(total / limit) };
    },

    async get(id: string): Promise<HelpArticle> {
      const row = UUID.test(id) ? await repo.findPublished(id) : undefined;
      if (!row) throw new AppError('NOT_FOUND', ARTICLE_NOT_FOUND);
      return toArticle(row);
    },

    /** Categories that hold a published article. */
    async categories(): Promise<string[]> {
      const { categories } = await repo.counts();
      return orderCategories(categories.map((c) => c.category));
    },

    async counts(): Promise<HelpCounts> {
      const { categories, featured } = await repo.counts();
      const categoryCounts: Record<string, number> = {};
      for (const name of orderCategories(categories.map((c) => c.category)))
        categoryCounts[name] = categories.find((c) => c.category === name)!.n;
      const totalCount = categories.reduce((sum, c) => sum + c.n, 0);
      return { featuredCount: featured, categoryCounts, totalCount };
    },

    /** An article image: `/api/kb/images/<name>`. */
    async image(name: string): Promise<{ body: Readable; size: number; contentType: string }> {
      let stat = HELP_IMAGE_NAME.test(name) ? await storage.stat(imageKey(name)) : null;
      // A seeded article's screenshot ships with the app and is put into storage on first use, so
      // a new store (or a bucket restored without it) still shows it.
      if (!stat && SEED_IMAGES.has(name)) {
        const bytes = await readSeedImage(name);
        await storage.put(imageKey(name), bytes, { contentType: 'image/webp', size: bytes.length });
        stat = await storage.stat(imageKey(name));
      }
      if (!stat) throw new AppError('NOT_FOUND', 'Image not found');
      return {
        body: await storage.get(imageKey(name)),
        size: stat.size,
        contentType: name.endsWith('.png') ? 'image/png' : 'image/webp',
      };
    },
  };
}

/** Every article as admins see it, drafts included, and the articles they write, change and delete. */
function createHelpArticlesAdmin(deps: HelpDeps, tools: HelpTools) {
  const { repo, audit, columns, requireLive } = tools;
  return {
    /** Every article, drafts included. */
    async list(): Promise<AdminHelpArticle[]> {
      return (await repo.listAll()).map(toAdminArticle);
    },

    async get(id: string): Promise<AdminHelpArticle> {
      return toAdminArticle(await requireLive(id));
    },

    // Every change below is an admin change: a recent sign-in first (modules/admin, adminChanges).
    ...adminChanges(deps.requireRecentSignIn, 'help.admin_change', {
      async create(
        actor: RecentAdmin,
        input: HelpArticleInput,
        meta: RequestMeta,
      ): Promise<AdminHelpArticle> {
        const at = deps.now();
        const values = columns(input);
        const row = await repo.insert({
          ...values,
          createdBy: actor.id,
          updatedBy: actor.id,
          createdAt: at,
          updatedAt: at,
          publishedAt: values.published ? at : null,
        });
        await audit(actor, 'help.article_create', row.id, meta, {
          published: row.published,
          featured: row.featured,
        });
        return toAdminArticle(row);
      },

      async update(
        actor: RecentAdmin,
        id: string,
        input: HelpArticleInput,
        meta: RequestMeta,
      ): Promise<AdminHelpArticle> {
        const before = await requireLive(id);
        const at = deps.now();
        const values = columns(input);
        const row = await repo.update(before.id, {
          ...values,
          updatedBy: actor.id,
          updatedAt: at,
          publishedAt: values.published ? (before.publishedAt ?? at) : null,
        });
        if (!row) throw new AppError('NOT_FOUND', ARTICLE_NOT_FOUND);
        await audit(actor, 'help.article_update', row.id, meta, {
          published: row.published,
          featured: row.featured,
        });
        return toAdminArticle(row);
      },

      /** Publish, unpublish, feature or unfeature. */
      async patch(
        actor: RecentAdmin,
        id: string,
        patch: HelpArticlePatch,
        meta: RequestMeta,
      ): Promise<AdminHelpArticle> {
        const before = await requireLive(id);
        const at = deps.now();
        const changes: Partial<NewHelpArticleRow> = { updatedBy: actor.id, updatedAt: at };
        if (patch.featured !== undefined) changes.featured = patch.featured;
        if (patch.published !== undefined) {
          changes.published = patch.published;
          changes.publishedAt = patch.published ? (before.publishedAt ?? at) : null;
        }
        const row = await repo.update(before.id, changes);
        if (!row) throw new AppError('NOT_FOUND', ARTICLE_NOT_FOUND);
        if (patch.published !== undefined && patch.published !== before.published)
          await audit(
            actor,
            patch.published ? 'help.article_publish' : 'help.article_unpublish',
            row.id,
            meta,
          );
        if (patch.featured !== undefined && patch.featured !== before.featured)
          await audit(
            actor,
            patch.featured ? 'help.article_feature' : 'help.article_unfeature',
            row.id,
            meta,
          );
        return toAdminArticle(row);
      },

      /** Takes an article off the help centre for good (a seeded one is not put back on restart). */
      async delete(actor: RecentAdmin, id: string, meta: RequestMeta): Promise<void> {
        const before = await requireLive(id);
        const at = deps.now();
        await repo.update(before.id, { deletedAt: at, updatedBy: actor.id, published: false });
        await audit(actor, 'help.article_delete', before.id, meta);
      },
    }),
  };
}

/** Screenshots admins upload for articles. */
function createHelpImagesAdmin(deps: HelpDeps, tools: HelpTools) {
  const { storage } = tools;
  return {
    // Every change below is an admin change: a recent sign-in first (modules/admin, adminChanges).
    ...adminChanges(deps.requireRecentSignIn, 'help.admin_change', {
      /**
       * Stores an uploaded picture for an article. It is decoded and re-encoded as WebP (no wider
       * or taller than 1600 px, metadata dropped), so only pixels are ever stored: a file that only
       * claims to be an image, an SVG with script, or a photo's GPS tags never reach a reader.
       */
      async uploadImage(actor: RecentAdmin, body: unknown, meta: RequestMeta): Promise<{ url: string }> {
        if (!Buffer.isBuffer(body) || body.length === 0)
          throw new AppError('BAD_REQUEST', 'Choose a picture to upload.');
        let webp: Buffer;
        try {
          webp = await sharp(body, { limitInputPixels: 40_000_000, animated: false })
            .rotate()
            .resize({
              width: IMAGE_MAX_SIDE,
              height: IMAGE_MAX_SIDE,
              fit: 'inside',
              withoutEnlargement: true,
            })
            .webp({ quality: 82 })
            .toBuffer();
        } catch {
          throw new AppError('UNPROCESSABLE', IMAGE_UNUSABLE);
        }
        const name = `${randomUUID()}.webp`;
        await storage.put(imageKey(name), webp, { contentType: 'image/webp', size: webp.length });
        await deps.audit({
          actorId: actor.id,
          actorRole: actor.role,
          action: 'help.image_upload',
          outcome: 'success',
          targetType: 'help_image',
          targetId: name,
          requestId: meta.requestId,
          ip: meta.ip,
          details: { bytes: webp.length },
        });
        return { url: `${HELP_IMAGE_PATH}${name}` };
      },
    }),
  };
}

/** Admin → Help: every article, and the admin's changes. */
function createHelpAdmin(deps: HelpDeps, tools: HelpTools) {
  return {
    ...createHelpArticlesAdmin(deps, tools),
    ...createHelpImagesAdmin(deps, tools),
  };
}

/**
 * The help centre: published articles for every signed-in user (/help), and their authoring by
 * admins (Admin → Help articles). Article HTML is sanitised here on every save, seed content
 * included, so what the API returns is always safe to render.
 */
export function createHelpService(deps: HelpDeps) {
  const tools = createHelpTools(deps);
  return {
    ...createHelpReading(deps, tools),
    admin: createHelpAdmin(deps, tools),
  };
}

export type HelpService = ReturnType<typeof createHelpService>;
