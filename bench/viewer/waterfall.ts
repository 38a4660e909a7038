/**
 * Records what OHIF does before its first image on our viewer origin, in headless Chromium with a
 * new profile: every request (start and end in ms from navigation, bytes, type, and what asked for
 * it), the time to the first image and DOMContentLoaded.
 *
 *   npx tsx bench/viewer/waterfall.ts
 *
 * BENCH_SLICES=120; WATERFALL_RUNS=n repeats the cold load and prints the median; OHIF_DIR and
 * APP_CONFIG serve another copy of OHIF or another configuration; WATERFALL_WIDE=1 prints whole
 * URLs; WATERFALL_TRACE=file.json writes a Chromium trace and WATERFALL_PROFILE=file.cpuprofile a
 * CPU profile of the page, WATERFALL_SHOT=file.png a screenshot at the first image; WATERFALL_FIRST_IMAGE=apps/viewer/first-image.json records the chunks,
 * styles and fonts asked for before the first image (the list optimise-ohif.mjs preloads; record
 * it from the published release, e.g. OHIF_DIR=/tmp/ohif-<version>-… left by bench/viewer/run.ts).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { preparedStudy, startViewerOrigin } from './prepared-study';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../e2e/chromium';
import { viewportHasImage } from './first-image';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ohifDir = process.env.OHIF_DIR ?? path.join(root, 'apps/viewer/ohif');
const slices = Number(process.env.BENCH_SLICES ?? 120);
if (!existsSync(path.join(ohifDir, 'index.html')))
  throw new Error('run `npm run build -w apps/viewer` first');

const { ctx, viewerApp } = await startViewerOrigin({
  ohifDir,
  appConfigFile: process.env.APP_CONFIG ?? path.join(root, 'apps/viewer/app-config.js'),
});
const browser = await chromium.launch({
  executablePath: CHROMIUM_PATH,
  args: CHROMIUM_ARGS,
});
try {
  const { studyId, auth } = await preparedStudy(ctx, 'waterfall@example.com', slices);
  const times: number[] = [];
  for (let run = 0; run < Number(process.env.WATERFALL_RUNS ?? 1); run++) {
    const url = (await ctx.app.inject({ url: `/api/dicom/viewer/${studyId}`, headers: auth })).json()
      .url as string;
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => console.log(`pageerror: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && console.log(`console: ${m.text().slice(0, 300)}`));
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const reqs = new Map<
      string,
      {
        url: string;
        start: number;
        end?: number;
        size?: number;
        type?: string;
        initiator?: string;
        fromCache?: boolean;
      }
    >();
    let t0 = 0;
    cdp.on('Network.requestWillBeSent', (e) => {
      if (!t0) t0 = e.timestamp;
      const frames = e.initiator?.stack?.callFrames ?? [];
      const init =
        e.type === 'XHR' || e.type === 'Fetch'
          ? frames
              .slice(0, 10)
              .map((f) => f.functionName || '?')
              .join('<')
          : (e.initiator?.url ?? frames[0]?.url ?? e.initiator?.type);
      reqs.set(e.requestId, { url: e.request.url, start: e.timestamp, type: e.type, initiator: init });
    });
    cdp.on('Network.loadingFinished', (e) => {
      const r = reqs.get(e.requestId);
      if (r) Object.assign(r, { end: e.timestamp, size: e.encodedDataLength });
    });
    const profile = process.env.WATERFALL_PROFILE;
    if (profile) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
      await cdp.send('Profiler.start');
    }
    const trace = process.env.WATERFALL_TRACE;
    if (trace) await browser.startTracing(page, { path: trace, screenshots: false });
    const wall = Date.now();
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForFunction(viewportHasImage, undefined, {
      polling: 20,
      timeout: Number(process.env.WATERFALL_TIMEOUT ?? 120_000),
    });
    const total = Date.now() - wall;
    if (process.env.WATERFALL_SHOT) await page.screenshot({ path: process.env.WATERFALL_SHOT });
    if (profile) writeFileSync(profile, JSON.stringify((await cdp.send('Profiler.stop')).profile));
    times.push(total);
    const beforeImage = new Set(reqs.keys());
    if (trace) await browser.stopTracing();
    const marks = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      return { dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, now: performance.now() };
    });
    console.log(
      `first image after ${total} ms; DOMContentLoaded ${marks.dcl.toFixed(0)} ms, load ${marks.load.toFixed(0)} ms`,
    );
    const rows = [...reqs.values()].sort((a, b) => a.start - b.start);
    for (const r of rows) {
      const u = new URL(r.url);
      const name = (u.pathname + u.search)
        .replace(/\/dicomweb\/studies\/[^/]+/, '/dicomweb/studies/…')
        .slice(0, process.env.WATERFALL_WIDE ? 400 : 90);
      console.log(
        `${((r.start - t0) * 1000).toFixed(0).padStart(6)} ${r.end ? ((r.end - t0) * 1000).toFixed(0).padStart(6) : '     -'} ${String(r.size ?? '').padStart(9)} ${(r.type ?? '').padEnd(10)} ${name}  <- ${(r.initiator ?? '').replace(/^http:\/\/[^/]+/, '').slice(0, 160)}`,
      );
    }
    const firstImageFile = process.env.WATERFALL_FIRST_IMAGE;
    if (firstImageFile) {
      // What the page asked for before its first image: chunk scripts, chunk styles and fonts.
      const names = [
        ...new Set(
          [...reqs].filter(([id]) => beforeImage.has(id)).map(([, r]) => new URL(r.url).pathname.slice(1)),
        ),
      ];
      const list = {
        release: JSON.parse(readFileSync(path.join(root, 'apps/viewer/package.json'), 'utf8')).ohif.version,
        scripts: names.filter((n) => /^\d+\.bundle\.[0-9a-f]+\.js$/.test(n)),
        styles: names.filter((n) => /^\d+\.css$/.test(n)),
        fonts: names.filter((n) => /^[0-9a-f]+\.woff2$/.test(n)),
      };
      writeFileSync(firstImageFile, `${JSON.stringify(list, null, 2)}\n`);
      console.log(`wrote ${firstImageFile}`);
    }
    await context.close();
  }
  console.log(
    `runs: ${times.join(', ')}; median ${[...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]}`,
  );
} finally {
  await browser.close();
  await viewerApp.close();
  await ctx.close();
}
