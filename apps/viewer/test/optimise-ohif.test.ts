import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module without type declarations
import { splitMainBundle } from '../optimise-ohif.mjs';

/**
 * A bundle of the shape webpack 5 emits for OHIF (minified): the module table at the top of the
 * bootstrap, the JSONP chunk runtime, then start-up requiring modules across the table.
 */
const BUNDLE =
  '(()=>{var __webpack_modules__={' +
  '11(module){module.exports="a".repeat(4000)},' +
  '22(module,__unused_webpack_exports,__webpack_require__){module.exports=__webpack_require__(11).length+__webpack_require__(44).n},' +
  '33(module){module.exports="b".repeat(3000)},' +
  '44(module){module.exports={n:7,text:"c".repeat(1000)}},' +
  '55(module){module.exports="d".repeat(2000)}' +
  '},__webpack_module_cache__={};function __webpack_require__(moduleId){var cachedModule=__webpack_module_cache__[moduleId];if(cachedModule!==void 0)return cachedModule.exports;var module=__webpack_module_cache__[moduleId]={exports:{}};return __webpack_modules__[moduleId](module,module.exports,__webpack_require__),module.exports}' +
  '__webpack_require__.m=__webpack_modules__,(()=>{var installedChunks={792:0},webpackJsonpCallback=(parentChunkLoadingFunction,data)=>{var[chunkIds,moreModules]=data,moduleId;if(chunkIds.some(id=>installedChunks[id]!==0))for(moduleId in moreModules)__webpack_require__.m[moduleId]=moreModules[moduleId];for(var i=0;i<chunkIds.length;i++)installedChunks[chunkIds[i]]=0},' +
  'chunkLoadingGlobal=globalThis.webpackChunk=globalThis.webpackChunk||[];chunkLoadingGlobal.forEach(webpackJsonpCallback.bind(null,0)),chunkLoadingGlobal.push=webpackJsonpCallback.bind(null,chunkLoadingGlobal.push.bind(chunkLoadingGlobal))})();' +
  'globalThis.result=[__webpack_require__(22),__webpack_require__(33).length,__webpack_require__(55).length]})();';

/** Runs scripts in order in a fresh global, as a page runs its deferred scripts. */
function runScripts(sources: string[]): unknown {
  const context = vm.createContext({});
  for (const source of sources) vm.runInContext(source, context);
  return (context as { result?: unknown }).result;
}

describe('splitMainBundle', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('moves the module table into parts of about equal size that run before the main bundle, with the same result', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'split-'));
    const original = 'app.bundle.0123456789abcdef0123.js';
    writeFileSync(path.join(dir, original), BUNDLE);
    writeFileSync(path.join(dir, `${original}.br`), 'stale copy');
    const expected = runScripts([BUNDLE]);
    expect(expected).toEqual([4007, 3000, 2000]);

    const { replaced, scripts } = splitMainBundle(dir, 2) as { replaced: string; scripts: string[] };
    expect(replaced).toBe(original);
    expect(scripts).toHaveLength(3);
    expect(scripts[0]).toMatch(/^app\.part1\.[0-9a-f]{20}\.js$/);
    expect(scripts[1]).toMatch(/^app\.part2\.[0-9a-f]{20}\.js$/);
    expect(scripts[2]).toMatch(/^app\.bundle\.[0-9a-f]{20}\.js$/);
    expect(scripts[2]).not.toBe(original);
    // The old name (and copies of it) is gone: a cached copy under that name stays the old content.
    expect(readdirSync(dir).sort()).toEqual([...scripts].sort());

    const sources = scripts.map((s) => readFileSync(path.join(dir, s), 'utf8'));
    expect(runScripts(sources)).toEqual(expected);
    // Each module is in exactly one part, and the main bundle keeps none.
    for (const id of ['11', '22', '33', '44', '55'])
      expect(sources.slice(0, 2).filter((s) => s.includes(`${id}(module`))).toHaveLength(1);
    expect(sources[2]).toContain('var __webpack_modules__={}');
    // Largest first into the lighter part: 4000+1000(+22) against 3000+2000.
    const [a, b] = sources.slice(0, 2).map((s) => s.length);
    expect(Math.abs(a! - b!)).toBeLessThan(500);
    // Without the parts the main bundle cannot start: they are really where the code is.
    expect(() => runScripts([sources[2]!])).toThrow();
  });

  it('refuses a bundle of another shape instead of writing a broken viewer', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'split-'));
    writeFileSync(path.join(dir, 'app.bundle.0123456789abcdef0123.js'), '(()=>{var x={1(){}};})();');
    expect(() => splitMainBundle(dir, 2)).toThrow(/unexpected shape/);
    expect(readdirSync(dir)).toEqual(['app.bundle.0123456789abcdef0123.js']);
  });
});
