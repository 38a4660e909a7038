import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { keepViewerModeOnly, splitMainBundle } from '../optimise-ohif.mjs';

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
  'chunkLoadingGlobal=globalThis.webpackChunk=globalThis.webpackChunk||[];chunkLoadingGlobal.forEach(webpackJsonpCallback.bind(null,0)),chunkLoadingGlobal.push=webpackJsonpCallback.bind(null,chunkLoadingGlobal.push.bind(chunkLoadingGlobal)),globalThis.installed=installedChunks})();' +
  'globalThis.result=[__webpack_require__(22),__webpack_require__(33).length,__webpack_require__(55).length]})();';

/** A chunk as webpack writes one whose modules are all strict: the directive at the top of the file. */
const STRICT_CHUNK =
  '"use strict";(globalThis.webpackChunk=globalThis.webpackChunk||[]).push([[4287],{' +
  '66(module){module.exports=(function(){return this===undefined})()}}]);';
/** A main-bundle module in sloppy mode: `this` in a plain call is the global object. */
const SLOPPY_MODULE = '77(module){module.exports=(function(){return this===globalThis})()},';

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

  it('merges the given chunks into the parts, marks them loaded, and keeps each module in its own strict mode', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'split-'));
    const bundle = BUNDLE.replace('{11(module)', `{${SLOPPY_MODULE}11(module)`).replace(
      'globalThis.result=[',
      'globalThis.result=[__webpack_require__(66),__webpack_require__(77),',
    );
    writeFileSync(path.join(dir, 'app.bundle.0123456789abcdef0123.js'), bundle);
    writeFileSync(path.join(dir, '4287.bundle.aaaaaaaaaaaaaaaaaaaa.js'), STRICT_CHUNK);
    writeFileSync(path.join(dir, '9999.bundle.bbbbbbbbbbbbbbbbbbbb.js'), 'self.onmessage=()=>{};');
    // As the page ran them before: the chunk, then the bundle.
    const before = runScripts([STRICT_CHUNK, bundle]);
    expect(before).toEqual([true, true, 4007, 3000, 2000]);

    const { scripts, merged } = splitMainBundle(dir, 3, [
      '4287.bundle.aaaaaaaaaaaaaaaaaaaa.js',
      '9999.bundle.bbbbbbbbbbbbbbbbbbbb.js',
    ]) as { scripts: string[]; merged: string[] };
    // A worker script is not a chunk: it is left alone.
    expect(merged).toEqual(['4287.bundle.aaaaaaaaaaaaaaaaaaaa.js']);
    const context = vm.createContext({});
    for (const s of scripts) vm.runInContext(readFileSync(path.join(dir, s), 'utf8'), context);
    const after = context as { result?: unknown; installed?: Record<string, number> };
    expect(after.result).toEqual(before);
    // webpack finds the merged chunk loaded and never asks the network for it.
    expect(after.installed?.['4287']).toBe(0);
    // The parts are not strict files: the sloppy module stays sloppy.
    for (const s of scripts) expect(readFileSync(path.join(dir, s), 'utf8')).not.toMatch(/^"use strict"/);
  });

  it('keeps only the Basic Viewer mode and names the chunks only the dropped plugins load', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'modes-'));
    const plugins =
      'extensions.push("@ohif/extension-default"),extensions.push("@ohif/extension-cornerstone"),extensions.push("@ohif/extension-ultrasound-pleura-bline"),modes.push("@ohif/mode-longitudinal"),modes.push("@ohif/mode-basic"),modes.push("@ohif/mode-segmentation"),modes.push("@ohif/mode-tmtv"),modes.push("@ohif/mode-microscopy"),modes.push("@ohif/mode-preclinical-4d"),modes.push("@ohif/mode-ultrasound-pleura-bline");';
    const load = (name: string, ids: number[]) =>
      `if(module==="${name}")return(await Promise.all([${ids.map((i) => `__webpack_require__2.e(${i})`).join(',')}]).then(__webpack_require__2.bind(__webpack_require__2,1))).default;`;
    const loader =
      'async function loadModule(module){if(typeof module!="string")return module;' +
      load('@ohif/extension-default', [1, 2]) +
      load('@ohif/extension-cornerstone', [1, 3]) +
      load('@ohif/extension-measurement-tracking', [1, 3, 4]) +
      load('@ohif/extension-ultrasound-pleura-bline', [1, 9]) +
      load('@ohif/mode-longitudinal', [5, 6]) +
      load('@ohif/mode-basic', [5]) +
      load('@ohif/mode-segmentation', [5, 7]) +
      load('@ohif/mode-tmtv', [8]) +
      load('@ohif/mode-microscopy', [10]) +
      load('@ohif/mode-preclinical-4d', [11]) +
      load('@ohif/mode-ultrasound-pleura-bline', [12]) +
      '}';
    const name = 'app.bundle.0123456789abcdef0123.js';
    writeFileSync(path.join(dir, name), `var extensions=[],modes=[];${plugins}${loader}`);
    const unused = keepViewerModeOnly(dir) as Set<string>;
    expect([...unused].sort()).toEqual(['10', '11', '12', '7', '8', '9']);
    const source = readFileSync(path.join(dir, name), 'utf8');
    const registered = vm.runInNewContext(`${source.split('async function')[0]};[extensions,modes]`);
    expect(JSON.parse(JSON.stringify(registered))).toEqual([
      ['@ohif/extension-default', '@ohif/extension-cornerstone'],
      ['@ohif/mode-longitudinal'],
    ]);

    writeFileSync(path.join(dir, name), 'var extensions=[],modes=[];modes.push("@ohif/mode-other");');
    expect(() => keepViewerModeOnly(dir)).toThrow(/unexpected shape/);
  });

  it('refuses a bundle of another shape instead of writing a broken viewer', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'split-'));
    writeFileSync(path.join(dir, 'app.bundle.0123456789abcdef0123.js'), '(()=>{var x={1(){}};})();');
    expect(() => splitMainBundle(dir, 2)).toThrow(/unexpected shape/);
    expect(readdirSync(dir)).toEqual(['app.bundle.0123456789abcdef0123.js']);
  });
});
