// Post-processing of the fetched OHIF build (apps/viewer/ohif), so the viewer starts faster from our
// origin. The npm release ships its bundles unminified (the main bundle alone is 15 MB) and its
// index.html lets the app discover the code of its extensions and modes one wave at a time. Here:
//
// 1. JavaScript bundles and CSS are minified (whitespace and syntax only: names are kept, so code
//    that reads a function's or class's name behaves as before).
// 2. index.html loads, beside the main bundle, the chunks, styles and font the first image needs
//    (first-image.json, recorded from the request waterfall of this release with
//    bench/viewer/waterfall.ts), so they arrive while the main bundle is still being parsed
//    instead of in four successive waves after it has started. The chunks' styles are inlined;
//    the chunks themselves join the main bundle's modules (step 4): running a webpack chunk only
//    registers its modules.
// 3. Only the mode our links open is registered (keepViewerModeOnly).
// 4. The main bundle's modules and those chunks are moved into a few scripts of about equal size
//    that run before what is left of it (see splitMainBundle), so the browser compiles them on
//    several threads at once, off the main thread.
// 5. Every compressible file is stored beside a brotli (.br) and a gzip (.gz) copy, which the
//    server sends to browsers that accept them (Content-Encoding, Vary: Accept-Encoding).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { parse } from 'acorn';
import { transform } from 'esbuild';

/** How many scripts the main bundle's modules are spread over (OHIF_MAIN_PARTS, for measuring). */
export const MAIN_BUNDLE_PARTS = Number(process.env.OHIF_MAIN_PARTS ?? 3);
/** Whether the first image's chunks join those parts (OHIF_MERGE_CHUNKS=0: each is a script of its own). */
const MERGE_FIRST_IMAGE_CHUNKS = process.env.OHIF_MERGE_CHUNKS !== '0';
/** Changes when the steps below or their settings change, so installed copies are processed again. */
export const OPTIMISE_VERSION = `8 parts=${MAIN_BUNDLE_PARTS} merge=${MERGE_FIRST_IMAGE_CHUNKS}`;

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
 * The release starts seven modes and the extension one of them needs. Our links open studies in
 * one: the Basic Viewer (longitudinal mode, route /viewer); the study list that leads to the others
 * is off. The rest only cost start-up time, so only that mode stays registered. Returns the chunks
 * that only the dropped plugins load, which the first image then does not need either.
 */
const RELEASE_PLUGINS =
  'extensions.push("@ohif/extension-default"),extensions.push("@ohif/extension-cornerstone"),extensions.push("@ohif/extension-ultrasound-pleura-bline"),modes.push("@ohif/mode-longitudinal"),modes.push("@ohif/mode-basic"),modes.push("@ohif/mode-segmentation"),modes.push("@ohif/mode-tmtv"),modes.push("@ohif/mode-microscopy"),modes.push("@ohif/mode-preclinical-4d"),modes.push("@ohif/mode-ultrasound-pleura-bline");';
const VIEWER_PLUGINS =
  'extensions.push("@ohif/extension-default"),extensions.push("@ohif/extension-cornerstone"),modes.push("@ohif/mode-longitudinal");';

export function keepViewerModeOnly(dir) {
  const mainName = readdirSync(dir).find((f) => MAIN_BUNDLE.test(f));
  const file = path.join(dir, mainName ?? 'app.bundle.js');
  const source = mainName ? readFileSync(file, 'utf8') : '';
  if (source.split(RELEASE_PLUGINS).length !== 2)
    throw new Error(
      'OHIF plugin list has an unexpected shape; update keepViewerModeOnly in optimise-ohif.mjs',
    );
  writeFileSync(file, source.replace(RELEASE_PLUGINS, VIEWER_PLUGINS));
  // loadModule: `if(module==="<name>")return(await <chunk loads>…).default;` for every plugin.
  const chunksOf = new Map();
  for (const m of source.matchAll(/if\(module==="([^"]+)"\)return\(await ([^;]*?)\)\.default;/g))
    chunksOf.set(
      m[1],
      [...(m[2] ?? '').matchAll(/\.e\((\d+)\)/g)].map((c) => c[1]),
    );
  const dropped = [...RELEASE_PLUGINS.matchAll(/"([^"]+)"/g)]
    .map((m) => m[1])
    .filter((name) => !VIEWER_PLUGINS.includes(`"${name}"`));
  if (dropped.some((name) => !chunksOf.has(name)))
    throw new Error(
      'OHIF plugin loader has an unexpected shape; update keepViewerModeOnly in optimise-ohif.mjs',
    );
  const kept = new Set([...chunksOf].filter(([name]) => !dropped.includes(name)).flatMap(([, ids]) => ids));
  return new Set(dropped.flatMap((name) => chunksOf.get(name)).filter((id) => !kept.has(id)));
}

/**
 * The module table of a webpack JSONP chunk (`(globalThis.webpackChunk=…).push([[ids],{…}])`), with
 * whether the file is strict; null for any other script (a worker, a chunk with its own runtime).
 */
function chunkTable(source) {
  // Walked as plain data: the checks below narrow what acorn's types cannot.
  /** @type {any} */
  const program = parse(source, { ecmaVersion: 'latest' });
  const strict = program.body[0]?.directive === 'use strict';
  const call = program.body.find(
    (s) => s.type === 'ExpressionStatement' && s.expression.type === 'CallExpression',
  );
  const args = call?.expression.arguments[0];
  if (call?.expression.callee.property?.name !== 'push' || args?.type !== 'ArrayExpression') return null;
  const [ids, table, runtime] = args.elements;
  if (ids?.type !== 'ArrayExpression' || table?.type !== 'ObjectExpression' || runtime) return null;
  return { ids: ids.elements.map((e) => source.slice(e.start, e.end)), table, strict };
}

/** Source text of each module of a table; a module from a strict file keeps strict mode by itself. */
function moduleSources(source, table, strict) {
  return table.properties.map((p) => {
    if (!strict) return source.slice(p.start, p.end);
    const body = p.value.body;
    if (body.type !== 'BlockStatement') throw new Error('unexpected module shape in an OHIF chunk');
    return `${source.slice(p.start, body.start + 1)}"use strict";${source.slice(body.start + 1, p.end)}`;
  });
}

/**
 * The main bundle holds about 10 MB of module code, and Chromium compiles a script on one
 * background thread while it arrives: on a cold start the page waits for that one thread. Here its
 * module table moves, unchanged, into `parts` scripts of about equal size, each registering its
 * modules the way webpack's own chunks do (`webpackChunk.push`); the main bundle keeps webpack's
 * runtime and start-up, which take those modules in before requiring any (the runtime reads the
 * queue first). The parts run before the main bundle, in order (`defer`), and compile in parallel.
 * The modules of `chunks` (the chunks the first image needs) join the parts too, which register
 * those chunks as loaded: one request each for a few large scripts instead of dozens. Modules keep
 * their own strict mode; the parts themselves are not strict, like the main bundle.
 * Every file gets a new content-hashed name, as cached copies of the old names stay valid forever.
 * Returns the script names to load, in order, and the chunks merged.
 */
export function splitMainBundle(dir, parts = MAIN_BUNDLE_PARTS, chunks = []) {
  const mainName = readdirSync(dir).find((f) => MAIN_BUNDLE.test(f));
  if (!mainName) throw new Error('OHIF main bundle not found; update optimise-ohif.mjs');
  const source = readFileSync(path.join(dir, mainName), 'utf8');
  let table;
  // The module table is `var __webpack_modules__ = {…}` at the top of webpack's bootstrap function.
  /** @type {any} */
  const program = parse(source, { ecmaVersion: 'latest' });
  const bootstrap = program.body[0]?.expression?.callee?.body?.body ?? [];
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
  const modules = moduleSources(source, table, false);
  const chunkIds = [];
  const merged = [];
  for (const chunk of chunks) {
    const chunkSource = readFileSync(path.join(dir, chunk), 'utf8');
    const found = chunkTable(chunkSource);
    if (!found) continue;
    modules.push(...moduleSources(chunkSource, found.table, found.strict));
    chunkIds.push(...found.ids);
    merged.push(chunk);
  }
  // Largest first, each to the lightest part: parts of about equal size.
  /** @type {Array<{ size: number; modules: string[] }>} */
  const bins = Array.from({ length: parts }, () => ({ size: 0, modules: [] }));
  for (const m of [...modules].sort((a, b) => b.length - a.length)) {
    const bin = bins.reduce((a, b) => (b.size < a.size ? b : a));
    bin.modules.push(m);
    bin.size += m.length;
  }
  const names = bins
    .filter((b) => b.modules.length)
    .map((b, i) => {
      // The first part also marks the merged chunks as loaded (they are, once every part has run).
      const ids = [`"app-part-${i + 1}"`, ...(i === 0 ? chunkIds : [])].join(',');
      const code = `(globalThis.webpackChunk=globalThis.webpackChunk||[]).push([[${ids}],{${b.modules.join(',')}}]);`;
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
  return { replaced: mainName, scripts: [...names, newMainName], merged };
}

/**
 * What the first image needs beside the main bundle: its chunks (deferred scripts, which only
 * register modules when they run; webpack then finds them installed when the app asks for them),
 * its styles (inlined) and a preload tag for its font.
 */
function firstImageAssets(dir, firstImage, unusedChunks = new Set()) {
  const exists = (f) => {
    try {
      return statSync(path.join(dir, f)).isFile();
    } catch {
      return false;
    }
  };
  // Worker scripts are left out: they are started as workers, never as page scripts.
  const scripts = firstImage.scripts.filter(
    (f) =>
      exists(f) &&
      !unusedChunks.has(f.split('.')[0]) &&
      JSONP_CHUNK.test(readFileSync(path.join(dir, f), 'utf8').slice(0, 200)),
  );
  const styles = firstImage.styles.filter(exists);
  const fonts = firstImage.fonts.filter(exists);
  // The chunks' styles are small: they go into the page itself, marked with the address webpack
  // would load them from, where its style loader finds them and asks for nothing (in the release
  // each was fetched when its chunk started, on the way to the first image).
  const inline = styles.map((f) => {
    const css = readFileSync(path.join(dir, f), 'utf8');
    if (/<\/style/i.test(css)) throw new Error(`${f} cannot be inlined; update optimise-ohif.mjs`);
    return `<style data-href="/${f}">${css}</style>`;
  });
  return {
    scripts,
    preloads: [
      ...inline,
      ...fonts.map((f) => `<link rel="preload" href="/${f}" as="font" type="font/woff2" crossorigin>`),
    ].join(''),
    count: scripts.length + styles.length + fonts.length,
  };
}

function rewriteIndex(dir, assets, main) {
  const file = path.join(dir, 'index.html');
  let html = readFileSync(file, 'utf8');
  const css = /<link href="\/app\.bundle\.css" rel="stylesheet">/.exec(html);
  const mainTag = `<script defer="defer" src="/${main.replaced}"></script>`;
  if (!css || !html.includes(mainTag))
    throw new Error('OHIF index.html has an unexpected shape; update optimise-ohif.mjs');
  const scripts = assets.scripts.filter((s) => !main.merged.includes(s));
  html = html.replace(css[0], css[0] + assets.preloads);
  html = html.replace(
    mainTag,
    [...scripts, ...main.scripts].map((s) => `<script defer="defer" src="/${s}"></script>`).join(''),
  );
  // The apple-touch start-up images are for iOS home-screen web apps; the viewer is opened from
  // the app, so they only add to the page.
  html = html.replace(/<link rel="apple-touch-startup-image"[^>]*>/g, '');
  writeFileSync(file, html);
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
  const unused = keepViewerModeOnly(dir);
  const assets = firstImageAssets(dir, firstImage, unused);
  const main = splitMainBundle(dir, MAIN_BUNDLE_PARTS, MERGE_FIRST_IMAGE_CHUNKS ? assets.scripts : []);
  rewriteIndex(dir, assets, main);
  const { count, saved } = await precompress(dir, filesUnder(dir));
  console.log(
    `OHIF optimised in ${((Date.now() - started) / 1000).toFixed(1)} s: bundles minified, main bundle and ${main.merged.length} chunks in ${main.scripts.length - 1} parts, ${assets.count} files loaded with the page, ${count} files precompressed (brotli saves ${(saved / 1024 / 1024).toFixed(1)} MiB)`,
  );
}
