// The pinned @ohif/app release, as published: its package's dependencies are those of OHIF's own
// build and are never needed to serve the built app, so the tarball is fetched with `npm pack` and
// only its dist/ is kept, after its integrity is checked against the value pinned in package.json.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** `{ package, version, integrity }` of the pinned release (apps/viewer/package.json). */
export const pinned = JSON.parse(readFileSync(path.join(here, 'package.json'), 'utf8')).ohif;

/**
 * OHIF's build folded onnxruntime-web's `typeof __filename < "u" && …` guard into `true && …`, so
 * that module throws "__filename is not defined", and the viewer never starts, whenever webpack
 * happens to start it outside a running script (no `document.currentScript`): for example when a
 * chunk's stylesheet is the last part of an extension to arrive, which a reload makes likely. The
 * guard is put back, as the other copies of that code in the same bundle have it.
 */
export function repairBundle(source) {
  return source.replace(
    /(\breturn\s+)true&&\((\w+)=\2\|\|__filename\)/g,
    '$1typeof __filename<"u"&&($2=$2||__filename)',
  );
}

/** Applies repairBundle to the release's bundles in `dir`. */
function repairRelease(dir) {
  for (const name of readdirSync(dir)) {
    if (!/\.bundle\.[0-9a-f]+\.js$/.test(name)) continue;
    const file = path.join(dir, name);
    const source = readFileSync(file, 'utf8');
    const repaired = repairBundle(source);
    if (repaired !== source) writeFileSync(file, repaired);
  }
}

/**
 * Puts the release's built app into `target` (which must not exist), without OHIF's sample
 * app-config.js (it points at public demo servers) and with the repair above. `prepare(dir)` may
 * change it further before it is moved into place.
 */
export async function extractRelease(target, prepare = async () => {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'ohif-'));
  try {
    console.log(`Fetching ${pinned.package}@${pinned.version}…`);
    const out = execFileSync(
      'npm',
      ['pack', `${pinned.package}@${pinned.version}`, '--json', '--pack-destination', work],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [{ filename }] = JSON.parse(out);
    const tarball = path.join(work, filename);
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (integrity !== pinned.integrity)
      throw new Error(`integrity mismatch for ${filename}: got ${integrity}`);
    const extracted = path.join(work, 'x');
    mkdirSync(extracted);
    execFileSync('tar', ['-xzf', tarball, '-C', extracted, 'package/dist']);
    const dist = path.join(extracted, 'package/dist');
    rmSync(path.join(dist, 'app-config.js'), { force: true });
    repairRelease(dist);
    await prepare(dist);
    renameSync(dist, target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
