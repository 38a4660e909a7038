// Post-processing of the fetched OHIF build (apps/viewer/ohif), so the viewer starts faster from our
// origin. The npm release ships its bundles unminified (the main bundle alone is 15 MB) and its
// index.html lets the app discover the code of its extensions and modes one wave at a time. Here:
//
// 1. JavaScript bundles and CSS are minified (whitespace and syntax only: names are kept, so code
//    that reads a function's or class's name behaves as before).
// 2. index.html loads, beside the main bundle, the chunks, styles and font the first image needs
//    (first-image.json, recorded from the request waterfall of this release with
//    bench/viewer/waterfall.ts), so they arrive while the main bundle is still being parsed
//    instead of in four successive waves after it has started. The chunks run as deferred
//    scripts before it: running a webpack chunk only registers its modules, and the browser
//    compiles deferred scripts off the main thread, where it would otherwise compile each chunk
//    on the main thread when the app first asks for it.
// 3. The main bundle's modules are moved into a few scripts of about equal size that run before it
//    (see splitMainBundle), so the browser compiles them on several threads at once.
// 4. Every compressible file is stored beside a brotli (.br) and a gzip (.gz) copy, which the
//    server sends to browsers that accept them (Content-Encoding, Vary: Accept-Encoding).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { parse } from 'acorn';
import { transform } from 'esbuild';

/** Bump when the steps below change, so installed copies are processed again. */
export const OPTIMISE_VERSION = 5;
/** How many scripts the main bundle's modules are spread over. */
export const MAIN_BUNDLE_PARTS = Number(process.env.OHIF_MAIN_PARTS ?? 3);

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
const COMPRESSIBLE = /\.(?:js|css|wasm|json|svg|html|txt|xml|ico|map|ttf|otf|eot)$/;
/** Large add-ons that the first image never needs (AI segmentation runtime, slide microscopy). */
const SKIP_DIRS = new Set(['ort', 'dicom-microscopy-viewer']);
/** A webpack JSONP chunk (as released or minified): safe to run early, it only registers modules. */
const JSONP_CHUNK = /^\s*(?:"use strict";)?\s*\(\s*globalThis(?:\["webpackChunk"\]|\.webpackChunk)\s*=/;

function filesUnder(dir, rel = '') {
  const out = [];
  for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const name = path.posix.join(rel, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(name)) out.push(...filesUnder(dir, name));
    } else if (entry.isFile()) out.push(name);
  }
  return out;
}

/** Runs `fn` over `items`, `limit` at a time. */
async function eachLimit(items, limit, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

async function minify(dir, files) {
  const targets = files.filter((f) => !f.includes('/') && /\.(?:bundle\.[0-9a-f]+\.js|css)$/.test(f));
  await eachLimit(targets, 2, async (f) => {
    const file = path.join(dir, f);
    const source = readFileSync(file, 'utf8');
    const { code } = await transform(source, {
      loader: f.endsWith('.css') ? 'css' : 'js',
      minifyWhitespace: true,
      minifySyntax: true,
      charset: 'utf8',
    });
    if (code.length < source.length) writeFileSync(file, code);
  });
}

const MAIN_BUNDLE = /^app\.bundle\.[0-9a-f]+\.js$/;
const contentName = (prefix, code) =>
  `${prefix}.${createHash('sha256').update(code).digest('hex').slice(0, 20)}.js`;

/**
 * The main bundle holds about 10 MB of module code, and Chromium compiles a script on one
 * background thread while it arrives: on a cold start the page waits for that one thread. Here its
 * module table moves, unchanged, into `parts` scripts of about equal size, each registering its
 * modules the way webpack's own chunks do (`webpackChunk.push`); the main bundle keeps webpack's
 * runtime and start-up, which take those modules in before requiring any (the runtime reads the
 * queue first). The parts run before the main bundle, in order (`defer`), and compile in parallel.
 * Every file gets a new content-hashed name, as cached copies of the old names stay valid forever.
 * Returns the script names to load, in order.
 */
export function splitMainBundle(dir, parts = MAIN_BUNDLE_PARTS) {
  const mainName = readdirSync(dir).find((f) => MAIN_BUNDLE.test(f));
  if (!mainName) throw new Error('OHIF main bundle not found; update optimise-ohif.mjs');
  const source = readFileSync(path.join(dir, mainName), 'utf8');
  let table;
  // The module table is `var __webpack_modules__ = {…}` at the top of webpack's bootstrap function.
  const bootstrap = parse(source, { ecmaVersion: 'latest' }).body[0]?.expression?.callee?.body?.body ?? [];
  for (const statement of bootstrap) {
    if (statement.type !== 'VariableDeclaration') continue;
    const declarator = statement.declarations.find((d) => d.id.name === '__webpack_modules__');
    if (declarator?.init?.type === 'ObjectExpression') table = declarator.init;
  }
  if (
    !table ||
    !/chunkLoadingGlobal=globalThis\.webpackChunk=globalThis\.webpackChunk\|\|\[\];chunkLoadingGlobal\.forEach\(webpackJsonpCallback/.test(
      source,
    )
  )
    throw new Error('OHIF main bundle has an unexpected shape; update splitMainBundle in optimise-ohif.mjs');
  // Largest first, each to the lightest part: parts of about equal size.
  const bins = Array.from({ length: parts }, () => ({ size: 0, modules: [] }));
  const modules = table.properties.map((p) => source.slice(p.start, p.end));
  for (const m of [...modules].sort((a, b) => b.length - a.length)) {
    const bin = bins.reduce((a, b) => (b.size < a.size ? b : a));
    bin.modules.push(m);
    bin.size += m.length;
  }
  const names = bins
    .filter((b) => b.modules.length)
    .map((b, i) => {
      const code = `"use strict";(globalThis.webpackChunk=globalThis.webpackChunk||[]).push([["app-part-${i + 1}"],{${b.modules.join(',')}}]);`;
      const name = contentName(`app.part${i + 1}`, code);
      writeFileSync(path.join(dir, name), code);
      return name;
    });
  const main = source.slice(0, table.start) + '{}' + source.slice(table.end);
  const newMainName = contentName('app.bundle', main);
  writeFileSync(path.join(dir, newMainName), main);
  // The old name goes, with any compressed copy of it.
  for (const f of readdirSync(dir))
    if (f === mainName || f.startsWith(`${mainName}.`)) unlinkSync(path.join(dir, f));
  return { replaced: mainName, scripts: [...names, newMainName] };
}

/**
 * What the first image needs beside the main bundle: its chunks (deferred scripts, which only
 * register modules when they run; webpack then finds them installed when the app asks for them),
 * and preload tags for its styles and font.
 */
function firstImageAssets(dir, firstImage) {
  const exists = (f) => {
    try {
      return statSync(path.join(dir, f)).isFile();
    } catch {
      return false;
    }
  };
  // Worker scripts are left out: they are started as workers, never as page scripts.
  const scripts = firstImage.scripts.filter(
    (f) => exists(f) && JSONP_CHUNK.test(readFileSync(path.join(dir, f), 'utf8').slice(0, 200)),
  );
  const styles = firstImage.styles.filter(exists);
  const fonts = firstImage.fonts.filter(exists);
  return {
    scripts,
    preloads: [
      ...styles.map((f) => `<link rel="preload" href="/${f}" as="style">`),
      ...fonts.map((f) => `<link rel="preload" href="/${f}" as="font" type="font/woff2" crossorigin>`),
    ].join(''),
    count: scripts.length + styles.length + fonts.length,
  };
}

function rewriteIndex(dir, firstImage, main) {
  const file = path.join(dir, 'index.html');
  let html = readFileSync(file, 'utf8');
  const css = /<link href="\/app\.bundle\.css" rel="stylesheet">/.exec(html);
  const mainTag = `<script defer="defer" src="/${main.replaced}"></script>`;
  if (!css || !html.includes(mainTag))
    throw new Error('OHIF index.html has an unexpected shape; update optimise-ohif.mjs');
  const { scripts, preloads, count } = firstImageAssets(dir, firstImage);
  html = html.replace(css[0], css[0] + preloads);
  html = html.replace(
    mainTag,
    [...scripts, ...main.scripts].map((s) => `<script defer="defer" src="/${s}"></script>`).join(''),
  );
  // The apple-touch start-up images are for iOS home-screen web apps; the viewer is opened from
  // the app, so they only add to the page.
  html = html.replace(/<link rel="apple-touch-startup-image"[^>]*>/g, '');
  writeFileSync(file, html);
  return count;
}

async function precompress(dir, files) {
  const targets = files.filter((f) => COMPRESSIBLE.test(f) && statSync(path.join(dir, f)).size >= 1024);
  let saved = 0;
  await eachLimit(targets, 2, async (f) => {
    const file = path.join(dir, f);
    const bytes = readFileSync(file);
    const br = await brotli(bytes, {
      params: {
        [zlib.BROTLI_PARAM_QUALITY]: bytes.length > 4 * 1024 * 1024 ? 9 : 11,
        [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    });
    const gz = await gzipAsync(bytes, { level: 9 });
    // Only worth a copy when it is clearly smaller.
    if (br.length < bytes.length * 0.9) {
      writeFileSync(`${file}.br`, br);
      saved += bytes.length - br.length;
    }
    if (gz.length < bytes.length * 0.9) writeFileSync(`${file}.gz`, gz);
  });
  return { count: targets.length, saved };
}

/** Applies every step to a freshly extracted OHIF build in `dir`. */
export async function optimiseOhif(dir, firstImage) {
  const started = Date.now();
  const files = filesUnder(dir);
  await minify(dir, files);
  const main = splitMainBundle(dir);
  const tags = rewriteIndex(dir, firstImage, main);
  const { count, saved } = await precompress(dir, filesUnder(dir));
  console.log(
    `OHIF optimised in ${((Date.now() - started) / 1000).toFixed(1)} s: bundles minified, main bundle in ${main.scripts.length - 1} parts, ${tags} files loaded with the page, ${count} files precompressed (brotli saves ${(saved / 1024 / 1024).toFixed(1)} MiB)`,
  );
}
