/**
 * A user with 10,000 studies, on PostgreSQL, in headless Chromium: how long My Studies takes to show
 * its first rows, and how long a sort, a text search and a study date range take to show their new
 * first row.
 *
 *   npm run build -w apps/web
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/scale/my-studies-browser.ts
 *
 * BENCH_STUDIES (10000), BENCH_RUNS (7) per measure, BENCH_WARMUP (1) uncounted runs first,
 * BENCH_VERBOSE=1 prints each time as it is taken, BENCH_TIMEOUT_MS (300000) for any one step,
 * BENCH_WEB_DIST another build of the web app to serve (apps/web/dist), BENCH_LAYOUTS (wide,narrow).
 * Elements are found by CSS selectors rather than by role: working out roles and names over a page
 * of 10,000 rendered rows takes Playwright minutes.
 *
 * The studies are bulk-inserted with SQL (seed-studies.ts). The server is the tests' app
 * (createTestContext, on a database created for the run and dropped after it) in this process,
 * serving the built web app (apps/web/dist) as `npm start` does; the browser is Debian's Chromium
 * started as the browser tests start it (e2e/chromium.ts), signed in through the sign-in page.
 *
 * Every time is taken in the page, on its clock: from the start of the navigation, or from the
 * `timeStamp` of the input event (click, input, change) that asks for the change, to the first
 * frame painted after the list's DOM last changed (a requestAnimationFrame callback, then a message
 * posted from it, which runs once that frame is painted). The wide layout (1280×800) is the table,
 * the narrow one (390×844) the cards.
 */
import { cpus, loadavg } from 'node:os';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from '@playwright/test';
import pg from 'pg';
import { buildApp } from '../../apps/server/src/http/app';
import { webDistDir } from '../../apps/server/src/paths';
import { createTestContext, registerPatient, strongPassword } from '../../apps/server/test/helpers/test-app';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../e2e/chromium';
import { median } from '../median';
import { seedStudies } from './seed-studies';

if (!process.env.DATABASE_URL) {
  console.error('Set DATABASE_URL to a PostgreSQL server (a database is created for the run and dropped).');
  process.exit(2);
}
// BENCH_WEB_DIST serves another build of the web app (say, one of an earlier commit) instead.
const WEB_DIST = process.env.BENCH_WEB_DIST ?? webDistDir;
if (!existsSync(path.join(WEB_DIST, 'index.html'))) {
  console.error(`No web app built in ${WEB_DIST}: run \`npm run build -w apps/web\` first.`);
  process.exit(2);
}
const STUDIES = Number(process.env.BENCH_STUDIES ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);
const EMAIL = 'scale-my-studies@example.com';
// Any one step: generous, since a list that renders every row takes long.
const TIMEOUT = Number(process.env.BENCH_TIMEOUT_MS ?? 300_000);

const WIDE = { width: 1280, height: 800 };
const NARROW = { width: 390, height: 844 };
const LAYOUTS = (
  [
    ['wide', WIDE],
    ['narrow', NARROW],
  ] as const
).filter(([name]) => (process.env.BENCH_LAYOUTS ?? 'wide,narrow').split(',').includes(name));

/**
 * Installed in every page before its scripts run: `window.__bench`, which finds the list's rows
 * (the table captioned 'My studies' or the list of cards named so) and times changes to them.
 */
function pageProbe() {
  type Watch = {
    t0: number | null;
    before: string;
    changed: boolean;
    lastMutation: number;
    firstMutation: number;
    lastPaint: number;
    mutations: number;
  };
  const w = window as unknown as { __bench: unknown };
  const rows = (): Element[] => {
    for (const table of Array.from(document.querySelectorAll('table'))) {
      if (table.querySelector('caption')?.textContent === 'My studies')
        return Array.from(table.querySelectorAll(':scope > tbody > tr'));
    }
    const cards = document.querySelector('ul[aria-label="My studies"]');
    return cards ? Array.from(cards.children) : [];
  };
  // The frame painted after now: a message posted from the next animation frame runs once the
  // frame's style, layout and paint are done.
  const afterPaint = (cb: (t: number) => void) =>
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => cb(performance.now());
      ch.port2.postMessage(0);
    });
  const firstText = () => (rows()[0] as HTMLElement | undefined)?.innerText ?? '';
  let firstRows: { at: number; paint: number | null } | null = null;
  const initial = new MutationObserver(() => {
    if (firstRows || rows().length === 0) return;
    firstRows = { at: performance.now(), paint: null };
    initial.disconnect();
    afterPaint((t) => (firstRows!.paint = t));
  });
  initial.observe(document, { childList: true, subtree: true });
  let watch: Watch | null = null;
  let observer: MutationObserver | null = null;
  w.__bench = {
    /** Navigation start → the first frame painted with rows. */
    firstRows: () => firstRows?.paint ?? null,
    /** When the list's answer had arrived (its resource entry), navigation start as 0. */
    listFetched: () =>
      performance
        .getEntriesByType('resource')
        .filter((e) => e.name.includes('/api/studies/user/'))
        .map((e) => (e as PerformanceResourceTiming).responseEnd),
    /** The page's own requests and DOMContentLoaded, navigation start as 0 (BENCH_VERBOSE). */
    timeline: () => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
      const api = performance
        .getEntriesByType('resource')
        .map((e) => e as PerformanceResourceTiming)
        .filter((e) => /\/api\/|\.js$/.test(e.name))
        .map(
          (e) =>
            `${new URL(e.name).pathname.replace(/[0-9a-f-]{36}/g, ':id').slice(-40)} ${e.startTime.toFixed(0)}–${e.responseEnd.toFixed(0)}`,
        );
      return [`DOMContentLoaded ${nav?.domContentLoadedEventEnd.toFixed(0)}`, ...api].join('; ');
    },
    rowCount: () => rows().length,
    /** Elements in the list's first row (or card). */
    rowElements: () => rows()[0]?.querySelectorAll('*').length ?? 0,
    firstText,
    /** Watches the next `type` event and the DOM changes after it. */
    arm(type: string) {
      observer?.disconnect();
      const wt: Watch = {
        t0: null,
        before: firstText(),
        changed: false,
        lastMutation: 0,
        lastPaint: 0,
        mutations: 0,
        firstMutation: 0,
      };
      watch = wt;
      window.addEventListener(type, (e) => (wt.t0 = e.timeStamp), { capture: true, once: true });
      observer = new MutationObserver(() => {
        if (wt.mutations++ === 0) wt.firstMutation = performance.now();
        wt.lastMutation = performance.now();
        if (firstText() !== wt.before) wt.changed = true;
        afterPaint((t) => (wt.lastPaint = Math.max(wt.lastPaint, t)));
      });
      observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    },
    /**
     * Once the first row has changed and nothing has changed for `quietMs`: event → the frame
     * painted after the last change, and what the list then shows.
     */
    settled(quietMs: number) {
      const wt = watch;
      if (!wt || wt.t0 === null || !wt.changed || wt.lastPaint < wt.lastMutation) return null;
      if (performance.now() - wt.lastMutation < quietMs) return null;
      observer?.disconnect();
      return {
        ms: wt.lastPaint - wt.t0,
        // Up to the first DOM change: the event's handlers and the render (scripts, not layout).
        scriptMs: wt.firstMutation - wt.t0,
        first: firstText(),
        rows: rows().length,
      };
    },
    /** What the watch has seen so far (for a change that never settles). */
    watchState: () => ({ ...watch, first: firstText().slice(0, 80), rows: rows().length }),
    /** Watches for the list's rows to appear after the next `type` event (an in-app navigation). */
    armFirstRows(type: string) {
      const wt = { t0: null as number | null, paint: null as number | null };
      window.addEventListener(type, (e) => (wt.t0 = e.timeStamp), { capture: true, once: true });
      const mo = new MutationObserver(() => {
        if (rows().length === 0) return;
        mo.disconnect();
        afterPaint((t) => (wt.paint = t));
      });
      mo.observe(document.body, { childList: true, subtree: true });
      (w.__bench as { navWatch: unknown }).navWatch = wt;
    },
    navWatch: null as { t0: number | null; paint: number | null } | null,
  };
}

type Probe = {
  firstRows(): number | null;
  listFetched(): number[];
  timeline(): string;
  rowCount(): number;
  rowElements(): number;
  firstText(): string;
  arm(type: string): void;
  settled(quietMs: number): { ms: number; scriptMs: number; first: string; rows: number } | null;
  watchState(): unknown;
  armFirstRows(type: string): void;
  navWatch: { t0: number | null; paint: number | null } | null;
};
type W = { __bench: Probe };

const firstRowOf = (text: string) => /Number(\d+)/.exec(text)?.[1] ?? `? ${text.slice(0, 60)}`;

/** Times one interaction: arms the watch for `eventType`, does `act`, waits for the list to settle. */
async function timeChange(what: string, page: Page, eventType: string, act: () => Promise<void>) {
  await page.evaluate((t) => (window as unknown as W).__bench.arm(t), eventType);
  await act();
  const handle = await page
    .waitForFunction(() => (window as unknown as W).__bench.settled(400), undefined, {
      polling: 50,
      timeout: TIMEOUT,
    })
    .catch(async (err: unknown) => {
      const state = await page.evaluate(() => (window as unknown as W).__bench.watchState());
      throw new Error(`${what}: ${(err as Error).message}; ${JSON.stringify(state)}`);
    });
  const r = (await handle.jsonValue()) as { ms: number; scriptMs: number; first: string; rows: number };
  if (process.env.BENCH_VERBOSE)
    console.log(`    (${what}: ${r.scriptMs.toFixed(0)} ms to the first DOM change)`);
  return { ms: r.ms, first: firstRowOf(r.first), rows: r.rows };
}

const ctx = await createTestContext({ LOG_LEVEL: 'silent' });
const sqlClient = new pg.Client({ connectionString: ctx.services.config.databaseUrl });
await sqlClient.connect();
const web = await buildApp(ctx.services, { webDistDir: WEB_DIST, logRequests: false });
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
const fmtLoad = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

try {
  const reg = await registerPatient(ctx, EMAIL);
  const userId = reg.json().data.id as string;
  const fillSeconds = await seedStudies(sqlClient, userId, STUDIES);
  await web.listen({ port: 0, host: '127.0.0.1' });
  const addr = web.server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;

  // Signed in once through the sign-in page; every later context starts from its cookies.
  const signIn = await browser.newContext({ baseURL: base, viewport: WIDE });
  const signInPage = await signIn.newPage();
  await signInPage.goto('/login');
  await signInPage.getByLabel('Email').fill(EMAIL);
  await signInPage.getByLabel('Password', { exact: true }).fill(strongPassword);
  await signInPage.getByRole('button', { name: 'Sign In' }).click();
  await signInPage.getByText('Medical Imaging v3.0').waitFor({ timeout: TIMEOUT });
  const welcome = signInPage.getByRole('dialog', { name: 'Welcome to Medical Imaging' });
  if (await welcome.isVisible().catch(() => false))
    await welcome.getByRole('button', { name: 'Skip' }).click();
  const storageState = await signIn.storageState();
  await signIn.close();

  const listRes = await fetch(`${base}/api/studies/user/${userId}`, {
    headers: { cookie: storageState.cookies.map((c) => `${c.name}=${c.value}`).join('; ') },
  });
  const listBytes = (await listRes.arrayBuffer()).byteLength;

  console.log(
    `PostgreSQL, database ${ctx.services.config.databaseUrl?.split('/').pop()}; ${cpus().length} cores (${cpus()[0]?.model}); Chromium ${browser.version()}; ${STUDIES} studies seeded in ${fillSeconds.toFixed(1)} s; list answer ${(listBytes / 1024).toFixed(0)} KiB; load ${fmtLoad()}`,
  );

  const newContext = (viewport: { width: number; height: number }) =>
    browser
      .newContext({ baseURL: base, viewport, storageState, reducedMotion: 'reduce' })
      .then(async (c: BrowserContext) => {
        // tsx keeps function names with a `__name` helper that the page does not have.
        await c.addInitScript({ content: `globalThis.__name ??= (f) => f;\n(${pageProbe.toString()})();` });
        return c;
      });

  /** Navigation to /studies in `page` → first rows painted; and when the list's answer had arrived. */
  async function load(page: Page) {
    await page.goto('/studies', { waitUntil: 'commit' });
    const h = await page.waitForFunction(() => (window as unknown as W).__bench.firstRows(), undefined, {
      polling: 50,
      timeout: TIMEOUT,
    });
    const ms = (await h.jsonValue()) as number;
    const fetched = await page.evaluate(() => (window as unknown as W).__bench.listFetched());
    const rows = await page.evaluate(() => (window as unknown as W).__bench.rowCount());
    if (process.env.BENCH_VERBOSE)
      console.log(
        `    (${await page.evaluate(() => (window as unknown as W).__bench.timeline())}; rows ${ms.toFixed(0)})`,
      );
    return { ms, fetched: fetched[0] ?? NaN, rows };
  }

  type Series = Record<string, number[]>;
  const results: Record<string, Series> = { wide: {}, narrow: {} };
  const extra: string[] = [];
  const add = (layout: string, name: string, ms: number) => {
    (results[layout]![name] ??= []).push(ms);
    if (process.env.BENCH_VERBOSE) console.log(`  ${layout} ${name}: ${ms.toFixed(0)} ms`);
  };

  for (let run = -WARMUP; run < RUNS; run++) {
    const counted = run >= 0;
    for (const [layout, viewport] of LAYOUTS) {
      const context = await newContext(viewport);
      const page = await context.newPage();
      page.setDefaultTimeout(TIMEOUT);
      const cold = await load(page);
      const warm = await load(page);
      if (counted) {
        add(layout, 'open /studies, new browser profile', cold.ms);
        add(layout, 'open /studies again (HTTP cache warm)', warm.ms);
        add(layout, '  of which the list answer had arrived at', warm.fetched);
      }
      const shown = cold.rows;
      const perRow = await page.evaluate(() => (window as unknown as W).__bench.rowElements());

      // In-app: from the dashboard (which reads the same list) through the sidebar's My Studies link.
      if (layout === 'wide') {
        await page.goto('/', { waitUntil: 'load' });
        await page.getByText('Medical Imaging v3.0').waitFor();
        await page.waitForLoadState('networkidle');
        await page.evaluate(() => (window as unknown as W).__bench.armFirstRows('click'));
        await page.locator('nav[aria-label="Main"] a[href="/studies"]').first().click();
        const nav = (await (
          await page.waitForFunction(
            () => {
              const n = (window as unknown as W).__bench.navWatch;
              return n && n.t0 !== null && n.paint !== null ? n.paint - n.t0 : null;
            },
            undefined,
            { polling: 50, timeout: TIMEOUT },
          )
        ).jsonValue()) as number;
        if (counted) add(layout, 'dashboard → My Studies link', nav);
        await page.waitForLoadState('networkidle');
      }

      const steps: Array<[string, string, () => Promise<void>]> = [];
      if (layout === 'wide') {
        const header = (name: string) =>
          page.locator('thead th button', { hasText: new RegExp(`^${name}$`) });
        steps.push(
          ['sort: Upload Date ascending', 'click', () => header('Upload Date').click()],
          ['sort: Patient Name ascending', 'click', () => header('Patient Name').click()],
          ['sort: Patient Name descending', 'click', () => header('Patient Name').click()],
          ['sort: Study Date ascending', 'click', () => header('Study Date').click()],
          ['sort: Upload Date ascending', 'click', () => header('Upload Date').click()],
          ['sort: back to Upload Date descending', 'click', () => header('Upload Date').click()],
        );
      } else {
        const select = (value: string) => () =>
          page
            .locator('select[aria-label="Sort by"]')
            .selectOption(value)
            .then(() => {});
        steps.push(
          ['sort: Upload Date ascending', 'change', select('uploadDate:asc')],
          ['sort: Patient Name ascending', 'change', select('patientName:asc')],
          ['sort: Patient Name descending', 'change', select('patientName:desc')],
          ['sort: back to Upload Date descending', 'change', select('uploadDate:desc')],
        );
      }
      const search = () => page.locator('input[type="search"][aria-label="Search studies"]');
      steps.push(
        ['search: "4242"', 'input', () => search().fill('4242')],
        ['search: cleared', 'input', () => search().fill('')],
      );
      for (const [name, type, act] of steps) {
        const r = await timeChange(`${layout} ${name}`, page, type, act);
        if (counted) add(layout, name.replace(/^sort: .*/, 'sort (any)'), r.ms);
        if (run === 0) extra.push(`${layout} ${name}: first row Number${r.first}, ${r.rows} rows shown`);
      }
      // Study date range: 1–31 January 2015 (the second day's click applies it), then cleared.
      await page.locator('button', { hasText: 'Study date range' }).click();
      const picker = page.locator('[role="dialog"]');
      await picker.getByRole('combobox', { name: 'Choose the Year' }).first().selectOption('2015');
      await picker
        .getByRole('combobox', { name: 'Choose the Month' })
        .first()
        .selectOption({ label: 'January' });
      await picker.getByRole('button', { name: /^1 January 2015,/ }).click();
      const range = await timeChange(`${layout} date range`, page, 'click', () =>
        picker.getByRole('button', { name: /^31 January 2015,/ }).click(),
      );
      const cleared = await timeChange(`${layout} date range cleared`, page, 'click', () =>
        page.locator('button[aria-label="Clear study date range"]').click(),
      );
      if (counted) {
        add(layout, 'date range: Jan 2015 applied', range.ms);
        add(layout, 'date range: cleared', cleared.ms);
      }
      if (run === 0)
        extra.push(
          `${layout} first load: ${shown} rows in the DOM, ${perRow} elements in a row; date range: first row Number${range.first}, ${range.rows} rows; cleared: Number${cleared.first}, ${cleared.rows} rows`,
        );
      await context.close();
    }
    console.log(`run ${run < 0 ? 'warm-up' : run + 1} done, load ${fmtLoad()}`);
  }

  for (const line of extra) console.log(line);
  console.log(`\n${cpus().length} cores; ${RUNS} runs (after ${WARMUP} warm-up); ms, median / worst:`);
  for (const [layout] of LAYOUTS) {
    console.log(`${layout === 'wide' ? 'table, 1280×800' : 'cards, 390×844'}:`);
    for (const [name, xs] of Object.entries(results[layout]!)) {
      const target = name.startsWith(' ')
        ? ''
        : /studies|My Studies/.test(name)
          ? Math.max(...xs) <= 1000
            ? '  (≤ 1000: met)'
            : median(xs) <= 1000
              ? '  (≤ 1000: median met, worst not)'
              : '  (≤ 1000: NOT met)'
          : Math.max(...xs) <= 100
            ? '  (≤ 100: met)'
            : median(xs) <= 100
              ? '  (≤ 100: median met, worst not)'
              : '  (≤ 100: NOT met)';
      console.log(
        `  ${name.padEnd(42)} ${median(xs).toFixed(0).padStart(6)} / ${Math.max(...xs)
          .toFixed(0)
          .padStart(6)}  (n=${xs.length})${target}`,
      );
    }
  }
  console.log(`load ${fmtLoad()}`);
} finally {
  await browser.close();
  await web.close();
  await sqlClient.end();
  await ctx.close();
}
