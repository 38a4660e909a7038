import { workerBaseUrl } from './worker-app';
import AxeBuilder from '@axe-core/playwright';
import { test as base, expect, type Browser, type BrowserContext, type Page } from '@playwright/test';

/**
 * Accessibility checks of the browser tests: axe-core with the WCAG 2.1 A/AA rules, failing on
 * serious and critical findings.
 *
 * Every spec imports `test` from here. It watches every page of the test's browser contexts (the
 * `page` fixture's and those made with `browser.newContext()` / `browser.newPage()`): each time a
 * page of the app settles on a new address (a load or a client-side navigation), axe runs on it;
 * when the test ends, axe runs once more on every page still open. Findings fail the test with the
 * rule, the address and the selectors of the elements. `expectAccessible(page)` checks at a chosen
 * moment (an open dialog, menu or tab) and fails right there.
 *
 * Only the app's own pages are checked (those served with its index.html); the OHIF viewer is a
 * third-party app on an origin of its own (apps/viewer, see docs/decisions.md).
 */

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const FAILING_IMPACTS = new Set(['serious', 'critical']);
/** How long an address must stay put before it is checked: the page has rendered by then. */
const SETTLE_MS = 600;
/** A check that has not answered by then (a page stuck between documents) is given up. */
const CHECK_TIMEOUT_MS = 20_000;
/** Time added to a test for its last checks, so they never eat into the test's own time. */
const FINAL_CHECKS_MS = 30_000;

export interface A11yFinding {
  url: string;
  rule: string;
  impact: string;
  help: string;
  targets: string[];
  /** axe's own words on why each element failed (e.g. the contrast ratio and both colours). */
  why: string[];
}

/** Whether the page is the app (its index.html carries this description), not the viewer or a file. */
async function isAppPage(page: Page): Promise<boolean> {
  return page
    .evaluate(() => !!document.querySelector('meta[name="description"][content^="Medical Imaging:"]'))
    .catch(() => false);
}

/** One axe run at a time per page (axe refuses to run twice at once). */
const queues = new WeakMap<Page, Promise<unknown>>();
function serialised<T>(page: Page, run: () => Promise<T>): Promise<T> {
  const previous = queues.get(page) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(run);
  queues.set(
    page,
    next.catch(() => undefined),
  );
  return next;
}

/** The serious and critical WCAG 2.1 A/AA findings on the page as it is now. */
export async function axeFindings(page: Page): Promise<A11yFinding[]> {
  return serialised(page, async () => {
    const url = page.url();
    // Legacy mode runs axe in the page's own frames; the default opens a blank page in the context
    // to combine frame results, which can steal a file chooser or dialog a test is driving.
    const results = await new AxeBuilder({ page }).withTags(TAGS).setLegacyMode().analyze();
    return results.violations
      .filter((v) => FAILING_IMPACTS.has(v.impact ?? ''))
      .map((v) => ({
        url,
        rule: v.id,
        impact: v.impact ?? '',
        help: v.help,
        targets: v.nodes.map((n) => n.target.map(String).join(' >> ')),
        why: v.nodes.map((n) => (n.failureSummary ?? '').replace(/\s+/g, ' ').trim()),
      }));
  });
}

export function describeFindings(findings: A11yFinding[]): string {
  return findings
    .map(
      (f) =>
        `[${f.impact}] ${f.rule}: ${f.help}\n    on ${f.url}\n${f.targets.map((t, i) => `      - ${t}${f.why[i] ? `\n        ${f.why[i]}` : ''}`).join('\n')}`,
    )
    .join('\n');
}

/**
 * Checks the page as it is now (with its open dialog, menu or tab): serious or critical findings
 * fail the test, which goes on so that one run lists every finding.
 */
export async function expectAccessible(page: Page, where = ''): Promise<void> {
  const findings = await axeFindings(page);
  expect
    .soft(
      findings.length,
      `accessibility findings${where ? ` (${where})` : ''}:\n${describeFindings(findings)}`,
    )
    .toBe(0);
}

/** The findings of the running test's watched pages. */
class Watch {
  readonly findings: A11yFinding[] = [];
  readonly contexts = new Set<BrowserContext>();
  private readonly seen = new Set<string>();
  private readonly pending = new Set<Promise<void>>();
  private readonly timers = new Map<Page, ReturnType<typeof setTimeout>>();
  private closed = false;

  record(found: A11yFinding[]) {
    for (const f of found) {
      const key = `${new URL(f.url).pathname}|${f.rule}|${f.targets.join(',')}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.findings.push(f);
    }
  }

  context(context: BrowserContext) {
    if (this.contexts.has(context)) return;
    this.contexts.add(context);
    context.pages().forEach((p) => this.page(p));
    context.on('page', (p) => this.page(p));
  }

  private page(page: Page) {
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.schedule(page);
    });
    page.on('close', () => clearTimeout(this.timers.get(page)));
  }

  private schedule(page: Page) {
    if (this.closed) return;
    clearTimeout(this.timers.get(page));
    this.timers.set(
      page,
      setTimeout(() => {
        this.timers.delete(page);
        const run = this.check(page);
        this.pending.add(run);
        void run.finally(() => this.pending.delete(run));
      }, SETTLE_MS),
    );
  }

  /** Checks the page; a page that closes or navigates away meanwhile is checked at its next stop. */
  private async check(page: Page) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const gaveUp = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), CHECK_TIMEOUT_MS);
    });
    try {
      const run = (async () => {
        if (page.isClosed() || !(await isAppPage(page))) return [];
        return axeFindings(page);
      })();
      run.catch(() => undefined); // a run given up on may still fail later
      const found = await Promise.race([run, gaveUp]);
      if (found) this.record(found);
    } catch {
      /* closed or navigated during the run */
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for the running checks and checks every page of the contexts still open one last time. */
  async finish(contexts: Iterable<BrowserContext> = this.contexts) {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.pending]);
    for (const context of contexts) {
      for (const page of context.pages()) await this.check(page);
    }
  }
}

let current: Watch | null = null;

/** `browser.newContext()` (and so `browser.newPage()`) of the running test hands its contexts to the watch. */
function watchNewContexts(browser: Browser) {
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args: Parameters<Browser['newContext']>) => {
    const context = await newContext(...args);
    current?.context(context);
    return context;
  };
}

export const test = base.extend<{ a11yWatch: Watch }, { a11yBrowser: void }>({
  // This worker's own app (worker-app.ts); contexts made with browser.newContext() get it too.
  baseURL: async ({ baseURL }, use) => {
    await use(workerBaseUrl ?? baseURL);
  },
  a11yBrowser: [
    async ({ browser }, use) => {
      watchNewContexts(browser);
      await use();
    },
    { scope: 'worker', auto: true },
  ],
  a11yWatch: [
    // Playwright reads a fixture's dependencies from this pattern; this one has none.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use, testInfo) => {
      const watch = new Watch();
      current = watch;
      await use(watch);
      current = null;
      // A test that failed already keeps its own error; the accessibility one would hide it.
      if (testInfo.status !== testInfo.expectedStatus) return;
      testInfo.setTimeout(testInfo.timeout + FINAL_CHECKS_MS);
      await watch.finish();
      if (watch.findings.length) {
        throw new Error(
          `serious or critical accessibility findings (axe-core, WCAG 2.1 A/AA):\n${describeFindings(watch.findings)}`,
        );
      }
    },
    { auto: true },
  ],
  context: async ({ context, a11yWatch }, use, testInfo) => {
    a11yWatch.context(context);
    await use(context);
    // This context closes before the watch ends: its pages get their last check now.
    if (testInfo.status === testInfo.expectedStatus) {
      testInfo.setTimeout(testInfo.timeout + FINAL_CHECKS_MS);
      await a11yWatch.finish([context]);
    }
  },
});

export { expect };
