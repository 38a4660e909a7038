import { and, eq, like } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HELP_CATEGORIES,
  HELP_PAGE_SIZE,
  type AdminHelpArticle,
  type HelpArticle,
  type HelpArticleInput,
  type HelpArticleList,
  type HelpCounts,
} from '@mi/contracts/help';
import { auditEvents, helpArticles } from '../../../src/db/schema/index';
import { HELP_SEED_ARTICLES } from '../../../src/modules/help/seed/help-seed';
import { toPrefixQuery } from '../../../src/modules/help/help.service';
import { newPatient, type Patient } from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let ada: Patient;
let admin: Patient;

beforeAll(async () => {
  ctx = await createTestContext();
  ada = await newPatient(ctx, 'ada-help@example.com');
  admin = await newPatient(ctx, 'admin-help@example.com');
  await ctx.services.users.update(admin.id, { role: 'admin' });
});
afterAll(async () => {
  await ctx?.close();
});

const call = (
  who: Patient | null,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) =>
  ctx.app.inject({
    method,
    url,
    headers: { ...(who ? who.auth : {}), ...headers },
    ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
  });

async function list(query = ''): Promise<HelpArticleList> {
  const res = await call(ada, 'GET', `/api/kb${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
async function counts(): Promise<HelpCounts> {
  const res = await call(ada, 'GET', '/api/kb/counts');
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const titles = (l: HelpArticleList) => l.data.map((a) => a.title);

const draft = (overrides: Partial<HelpArticleInput> = {}): HelpArticleInput => ({
  title: 'Calibrating the quantum flux viewer',
  description: 'A draft about zyzzyva calibration.',
  content: '<p>Zyzzyva calibration steps.</p>',
  category: 'Viewing & Downloading',
  featured: false,
  published: false,
  ...overrides,
});

async function create(input: HelpArticleInput): Promise<AdminHelpArticle> {
  const res = await call(admin, 'POST', '/api/admin/kb', input);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

const png = (w = 40, h = 30) =>
  sharp({ create: { width: w, height: h, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();

describe('the seeded help centre', () => {
  it('starts with at least 14 published articles in at least 5 categories', async () => {
    const c = await counts();
    expect(c.totalCount).toBe(HELP_SEED_ARTICLES.length);
    expect(c.totalCount).toBeGreaterThanOrEqual(14);
    expect(Object.keys(c.categoryCounts).length).toBeGreaterThanOrEqual(5);
    expect(c.featuredCount).toBe(HELP_SEED_ARTICLES.filter((a) => a.featured).length);
    // Known categories come in their order.
    const categories = (await call(ada, 'GET', '/api/kb/categories')).json().data as string[];
    expect(categories).toEqual(HELP_CATEGORIES.filter((c2) => c2 in c.categoryCounts));
    expect(Object.keys(c.categoryCounts)).toEqual(categories);
  });

  it('serves the screenshots the articles show, to signed-in users', async () => {
    const all = await list('?limit=50');
    const srcs = all.data.flatMap((a) => [...a.content.matchAll(/src="([^"]+)"/g)].map((m) => m[1]!));
    expect(srcs.length).toBeGreaterThan(0);
    for (const src of new Set(srcs)) {
      const res = await call(ada, 'GET', src);
      expect(res.statusCode, src).toBe(200);
      expect(res.headers['content-type']).toBe('image/webp');
      expect(res.rawPayload.length).toBeLessThan(120_000);
    }
    expect((await call(null, 'GET', srcs[0]!)).statusCode).toBe(401);
    expect((await call(ada, 'GET', '/api/kb/images/missing.webp')).statusCode).toBe(404);
    expect((await call(ada, 'GET', '/api/kb/images/..%2F..%2Fsession-secret')).statusCode).toBe(404);
  });

  it('adds nothing on a second start', async () => {
    expect(await ctx.services.help.ensureArticles()).toBe(0);
  });
});

describe('GET /api/kb', () => {
  it('pages by 6, most recent first, with page and totalPages', async () => {
    const { totalCount } = await counts();
    const first = await list();
    expect(first.page).toBe(1);
    expect(first.data).toHaveLength(HELP_PAGE_SIZE);
    expect(first.totalPages).toBe(Math.ceil(totalCount / HELP_PAGE_SIZE));
    const last = await list(`?page=${first.totalPages}`);
    expect(last.data.length).toBe(totalCount - (first.totalPages - 1) * HELP_PAGE_SIZE);
    const everything = await list('?limit=50');
    expect(everything.data).toHaveLength(totalCount);
    const times = everything.data.map((a) => Date.parse(a.updatedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    // Each article has the specification's fields.
    expect(Object.keys(everything.data[0]!).sort()).toEqual(
      ['_id', 'category', 'content', 'description', 'featured', 'title', 'updatedAt'].sort(),
    );
  });

  it('answers an empty page past the end and for an unknown category', async () => {
    const past = await list('?page=99');
    expect(past.data).toEqual([]);
    expect(past.page).toBe(99);
    const unknown = await list(`?category=${encodeURIComponent('No Such Category')}`);
    expect(unknown).toEqual({ data: [], page: 1, totalPages: 0 });
  });

  it('filters by category and by featured', async () => {
    const c = await counts();
    const sharing = await list(`?category=${encodeURIComponent('Sharing & Providers')}&limit=50`);
    expect(sharing.data).toHaveLength(c.categoryCounts['Sharing & Providers']!);
    expect(sharing.data.every((a) => a.category === 'Sharing & Providers')).toBe(true);
    const featured = await list('?featured=true&limit=50');
    expect(featured.data).toHaveLength(c.featuredCount);
    expect(featured.data.every((a) => a.featured)).toBe(true);
  });

  it('searches titles and bodies with full-text search, words as prefixes, best match first', async () => {
    const recovery = await list('?q=recovery%20codes');
    expect(recovery.data[0]!.title).toBe('Two-factor sign-in and recovery codes');
    // A word only in a body, stemmed: 'DICOMDIR' appears in the CD article's text.
    expect(titles(await list('?q=dicomdir'))).toContain('Uploading from a CD or DVD');
    expect(titles(await list('?q=revok'))).toContain('Sharing a study with a doctor, and revoking access');
    expect(titles(await list('?q=uploading'))[0]).toMatch(/upload/i);
    // Search within a category.
    const inCategory = await list(`?q=storage&category=${encodeURIComponent('Privacy & Storage')}`);
    expect(inCategory.data.length).toBeGreaterThan(0);
    expect(inCategory.data.every((a) => a.category === 'Privacy & Storage')).toBe(true);
    expect((await list('?q=xylophonequartz')).data).toEqual([]);
  });

  it('treats search input as words only: operators, quotes and SQL change nothing', async () => {
    for (const q of [
      "recovery' or 1=1 --",
      'recovery & | ! ( ) : * <->',
      "'; drop table help_articles; --",
    ]) {
      const res = await call(ada, 'GET', `/api/kb?q=${encodeURIComponent(q)}`);
      expect(res.statusCode, q).toBe(200);
    }
    expect(toPrefixQuery("a' | b:* & !c")).toBe('a:* & b:* & c:*');
    expect((await list(`?q=${encodeURIComponent('!!! ***')}`)).data).toEqual([]);
    expect((await counts()).totalCount).toBeGreaterThanOrEqual(14);
  });

  it('refuses a search longer than 200 characters and bad paging values', async () => {
    expect((await call(ada, 'GET', `/api/kb?q=${'a'.repeat(201)}`)).statusCode).toBe(400);
    expect((await call(ada, 'GET', `/api/kb?q=${'a'.repeat(200)}`)).statusCode).toBe(200);
    expect((await call(ada, 'GET', '/api/kb?page=0')).statusCode).toBe(400);
    expect((await call(ada, 'GET', '/api/kb?limit=1000')).statusCode).toBe(400);
    expect((await call(ada, 'GET', '/api/kb?featured=maybe')).statusCode).toBe(400);
  });

  it('is for signed-in users only', async () => {
    for (const url of ['/api/kb', '/api/kb/categories', '/api/kb/counts']) {
      expect((await call(null, 'GET', url)).statusCode).toBe(401);
    }
  });
});

describe('GET /api/kb/{id}', () => {
  it('returns a published article', async () => {
    const [first] = (await list()).data as [HelpArticle];
    const res = await call(ada, 'GET', `/api/kb/${first._id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(first);
  });

  it("answers 'Article Not Found' for a missing id, a malformed id and an unpublished article", async () => {
    const hidden = await create(draft());
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id', hidden._id]) {
      const res = await call(ada, 'GET', `/api/kb/${id}`);
      expect(res.statusCode, id).toBe(404);
      expect(res.json().error).toBe('Article Not Found');
    }
    expect((await call(null, 'GET', `/api/kb/${hidden._id}`)).statusCode).toBe(401);
  });
});

describe('authoring', () => {
  it('is missing (404) for everyone but admins, whatever they send', async () => {
    const [article] = (await list()).data as [HelpArticle];
    const routes: Array<[Parameters<typeof call>[1], string, unknown?, Record<string, string>?]> = [
      ['GET', '/api/admin/kb'],
      ['GET', `/api/admin/kb/${article._id}`],
      ['POST', '/api/admin/kb', draft()],
      ['PUT', `/api/admin/kb/${article._id}`, draft()],
      ['PATCH', `/api/admin/kb/${article._id}`, { featured: true }],
      ['DELETE', `/api/admin/kb/${article._id}`],
      ['POST', '/api/admin/kb/images', await png(), { 'content-type': 'image/png' }],
      ['POST', '/api/admin/kb/images', Buffer.from('junk'), { 'content-type': 'text/plain' }],
      ['POST', '/api/admin/kb', { nonsense: true }],
    ];
    for (const [method, url, payload, headers] of routes) {
      for (const who of [ada, null]) {
        const res = await call(who, method, url, payload, headers);
        expect(res.statusCode, `${method} ${url}`).toBe(404);
      }
    }
    expect((await call(ada, 'GET', `/api/kb/${article._id}`)).statusCode).toBe(200);
  });

  it('sanitises HTML on save: no script, event handler or javascript: link is stored', async () => {
    const created = await create(
      draft({
        title: 'Sanitised article',
        published: true,
        content: [
          '<h1>Heading</h1>',
          '<p onclick="alert(1)">Safe <strong>text</strong><script>alert("x")</script></p>',
          '<img src="/api/kb/images/x.webp" onerror="alert(2)">',
          '<img src=x onerror=alert(3)>',
          '<img src="https://tracker.example.com/p.gif">',
          '<a href="javascript:alert(4)">bad link</a>',
          '<a href=" JaVaScRiPt:alert(5)">worse link</a>',
          '<a href="https://example.org/guide">good link</a>',
          '<iframe src="https://example.org"></iframe><svg onload="alert(6)"></svg>',
          '<style>body{display:none}</style><form action="/x"><input name="a"></form>',
        ].join(''),
      }),
    );
    const stored = (await call(ada, 'GET', `/api/kb/${created._id}`)).json() as HelpArticle;
    for (const html of [created.content, stored.content]) {
      expect(html).not.toMatch(/script|onerror|onclick|onload|javascript:|iframe|<svg|<style|<form|<input/i);
      expect(html).not.toContain('tracker.example.com');
      expect(html).toContain('<h2>Heading</h2>');
      // An undescribed picture gets an empty description, never none (packages/contracts/src/help-html.ts).
      expect(html).toContain('<img src="/api/kb/images/x.webp" alt="" />');
      expect(html).toContain(
        '<a href="https://example.org/guide" target="_blank" rel="noopener noreferrer nofollow">good link</a>',
      );
      expect(html).toContain('<a>bad link</a>');
    }
    // The database holds the sanitised HTML, not what was sent.
    const [row] = await ctx.services.database.db
      .select({ content: helpArticles.content })
      .from(helpArticles)
      .where(eq(helpArticles.id, created._id));
    expect(row!.content).toBe(stored.content);
    await call(admin, 'DELETE', `/api/admin/kb/${created._id}`);
  });

  it('creates a draft, publishes, features, edits, unpublishes and deletes it, auditing each step', async () => {
    const before = await counts();
    const article = await create(draft({ title: 'Zyzzyva guide' }));
    expect(article.published).toBe(false);
    expect(article.publishedAt).toBeNull();
    expect(
      (await call(admin, 'GET', '/api/admin/kb')).json().data.map((a: AdminHelpArticle) => a._id),
    ).toContain(article._id);
    expect((await list('?q=zyzzyva')).data).toEqual([]);

    const published = await call(admin, 'PATCH', `/api/admin/kb/${article._id}`, { published: true });
    expect(published.statusCode, published.body).toBe(200);
    expect(published.json().data.publishedAt).not.toBeNull();
    expect(titles(await list('?q=zyzzyva'))).toEqual(['Zyzzyva guide']);
    expect((await counts()).totalCount).toBe(before.totalCount + 1);

    await call(admin, 'PATCH', `/api/admin/kb/${article._id}`, { featured: true });
    expect((await counts()).featuredCount).toBe(before.featuredCount + 1);
    expect(titles(await list('?featured=true&limit=50'))).toContain('Zyzzyva guide');

    const edited = await call(admin, 'PUT', `/api/admin/kb/${article._id}`, {
      ...draft({ title: 'Zyzzyva guide, revised', category: 'Brand New Category' }),
      featured: true,
      published: true,
    });
    expect(edited.statusCode, edited.body).toBe(200);
    const c = await counts();
    expect(c.categoryCounts['Brand New Category']).toBe(1);
    // An admin's own category comes after the known ones.
    expect(Object.keys(c.categoryCounts).at(-1)).toBe('Brand New Category');
    expect((await call(ada, 'GET', `/api/kb/${article._id}`)).json().title).toBe('Zyzzyva guide, revised');

    await call(admin, 'PATCH', `/api/admin/kb/${article._id}`, { published: false });
    expect((await call(ada, 'GET', `/api/kb/${article._id}`)).statusCode).toBe(404);
    expect((await call(admin, 'PATCH', `/api/admin/kb/${article._id}`, {})).statusCode).toBe(400);

    expect((await call(admin, 'DELETE', `/api/admin/kb/${article._id}`)).statusCode).toBe(200);
    expect((await call(admin, 'GET', `/api/admin/kb/${article._id}`)).statusCode).toBe(404);
    expect((await call(admin, 'DELETE', `/api/admin/kb/${article._id}`)).statusCode).toBe(404);
    expect(await counts()).toEqual(before);

    const actions = (
      await ctx.services.database.db
        .select({ action: auditEvents.action, actorId: auditEvents.actorId })
        .from(auditEvents)
        .where(and(eq(auditEvents.targetId, article._id), like(auditEvents.action, 'help.%')))
    ).map((e) => e.action);
    expect(actions).toEqual([
      'help.article_create',
      'help.article_publish',
      'help.article_feature',
      'help.article_update',
      'help.article_unpublish',
      'help.article_delete',
    ]);
  });

  it('does not bring back a seeded article an admin deleted', async () => {
    const seeded = (await list('?q=notifications%20email%20preferences')).data[0]!;
    await call(admin, 'DELETE', `/api/admin/kb/${seeded._id}`);
    expect(await ctx.services.help.ensureArticles()).toBe(0);
    expect((await call(ada, 'GET', `/api/kb/${seeded._id}`)).statusCode).toBe(404);
  });

  it('stores uploaded images as WebP and serves them; refuses what is not an image', async () => {
    const res = await call(admin, 'POST', '/api/admin/kb/images', await png(2400, 1200), {
      'content-type': 'image/png',
    });
    expect(res.statusCode, res.body).toBe(201);
    const { url } = res.json() as { url: string };
    expect(url).toMatch(/^\/api\/kb\/images\/[0-9a-f-]+\.webp$/);
    const image = await call(ada, 'GET', url);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/webp');
    const meta = await sharp(image.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 1600, 800]);

    // An article may show it.
    const article = await create(
      draft({ content: `<p><img src="${url}" alt="Chart"></p>`, published: true }),
    );
    expect(article.content).toBe(`<p><img src="${url}" alt="Chart" /></p>`);
    await call(admin, 'DELETE', `/api/admin/kb/${article._id}`);

    const notImage = await call(admin, 'POST', '/api/admin/kb/images', Buffer.from('<svg onload=alert(1)>'), {
      'content-type': 'image/png',
    });
    expect(notImage.statusCode).toBe(422);
    const wrongType = await call(admin, 'POST', '/api/admin/kb/images', Buffer.from('x'), {
      'content-type': 'text/html',
    });
    expect(wrongType.statusCode).toBe(415);
    const empty = await call(admin, 'POST', '/api/admin/kb/images', Buffer.alloc(0), {
      'content-type': 'image/png',
    });
    expect([empty.statusCode, empty.json()]).toEqual([
      400,
      { error: 'Choose a picture to upload.', code: 'BAD_REQUEST' },
    ]);
    const [upload] = await ctx.services.database.db
      .select({ actorId: auditEvents.actorId })
      .from(auditEvents)
      .where(eq(auditEvents.action, 'help.image_upload'));
    expect(upload!.actorId).toBe(admin.id);
  });
});
