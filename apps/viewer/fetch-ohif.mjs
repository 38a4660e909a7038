// Puts the built OHIF viewer of the pinned @ohif/app release into ./ohif (not committed), optimised
// for a fast start by optimise-ohif.mjs (minified, first-image chunks preloaded, precompressed).
// Does nothing when that release is in place with the current optimisation.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPTIMISE_VERSION, optimiseOhif } from './optimise-ohif.mjs';
import { extractRelease, pinned } from './ohif-release.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const target = path.join(here, 'ohif');
const marker = path.join(target, '.release');
const firstImageText = readFileSync(path.join(here, 'first-image.json'), 'utf8');
const firstImage = JSON.parse(firstImageText);
const optimisation = createHash('sha256')
  .update(`${OPTIMISE_VERSION}\n${firstImageText}`)
  .digest('hex')
  .slice(0, 16);
const release = `${pinned.package}@${pinned.version} ${pinned.integrity} optimised ${optimisation}`;

if (existsSync(marker) && readFileSync(marker, 'utf8') === release) {
  console.log(`OHIF ${pinned.version} is in place`);
  process.exit(0);
}

if (firstImage.release !== pinned.version)
  console.warn(
    `first-image.json was recorded for OHIF ${firstImage.release}, not ${pinned.version}: record it again (bench/viewer/waterfall.ts)`,
  );
const next = `${target}.next`;
rmSync(next, { recursive: true, force: true });
await extractRelease(next, (dir) => optimiseOhif(dir, firstImage));
writeFileSync(path.join(next, '.release'), release);
rmSync(target, { recursive: true, force: true });
renameSync(next, target);
console.log(`OHIF ${pinned.version} ready in ${path.relative(process.cwd(), target) || '.'}`);
