// Post-processing of the fetched OHIF build (apps/viewer/ohif), so the viewer starts faster from our
// origin. The npm release ships its bundles unminified (the main bundle alone is 15 MB) and its
// index.html lets the app discover the code of its extensions and modes one wave at a time. Here:
//
// 1. JavaScript bundles and CSS are minified (whitespace and syntax only: names are kept, so code
//    that reads a function's or class's name behaves as before).
// 2. index.html preloads, beside the main bundle, the chunks, styles and font the first image needs
//    (first-image.json, recorded from the request waterfall of this release with
//    bench/viewer/waterfall.ts), so they arrive while the main bundle is still being parsed
//    instead of in four successive waves after it has started.
// 3. Every compressible file is stored beside a brotli (.br) and a gzip (.gz) copy, which the
//    server sends to browsers that accept them (Content-Encoding, Vary: Accept-Encoding).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { transform } from 'esbuild';

/** Bump when the steps below change, so installed copies are processed again. */
export const OPTIMISE_VERSION = 3;

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

/**
 * Tags that fetch the first image's chunks, styles and font with the page. Chunks are preloaded,
 * not run: webpack still runs each when the app asks for it, exactly as before (some read
 * `document.currentScript` while they start), but from the memory cache instead of the network.
 */
function firstImageTags(dir, firstImage) {
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
    tags: [
      ...scripts.map((f) => `<link rel="preload" href="/${f}" as="script">`),
      ...styles.map((f) => `<link rel="preload" href="/${f}" as="style">`),
      ...fonts.map((f) => `<link rel="preload" href="/${f}" as="font" type="font/woff2" crossorigin>`),
    ].join(''),
    count: scripts.length + styles.length + fonts.length,
  };
}

function rewriteIndex(dir, firstImage) {
  const file = path.join(dir, 'index.html');
  let html = readFileSync(file, 'utf8');
  const css = /<link href="\/app\.bundle\.css" rel="stylesheet">/.exec(html);
  if (!css || !/<script defer="defer" src="\/app\.bundle\.[0-9a-f]+\.js"><\/script>/.test(html))
    throw new Error('OHIF index.html has an unexpected shape; update optimise-ohif.mjs');
  const { tags, count } = firstImageTags(dir, firstImage);
  html = html.replace(css[0], css[0] + tags);
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
  const tags = rewriteIndex(dir, firstImage);
  const { count, saved } = await precompress(dir, filesUnder(dir));
  console.log(
    `OHIF optimised in ${((Date.now() - started) / 1000).toFixed(1)} s: bundles minified, ${tags} files preloaded, ${count} files precompressed (brotli saves ${(saved / 1024 / 1024).toFixed(1)} MiB)`,
  );
}
