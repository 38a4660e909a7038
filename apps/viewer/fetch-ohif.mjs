// Puts the built OHIF viewer of the pinned @ohif/app release into ./ohif (not committed).
// The package's dependencies are those of OHIF's own build and are never needed to serve the built
// app, so the tarball is fetched with `npm pack` and only its dist/ is kept, after its integrity is
// checked against the value pinned in package.json.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { ohif } = JSON.parse(readFileSync(path.join(here, 'package.json'), 'utf8'));
const target = path.join(here, 'ohif');
const marker = path.join(target, '.release');
const release = `${ohif.package}@${ohif.version} ${ohif.integrity}`;

if (existsSync(marker) && readFileSync(marker, 'utf8') === release) {
  console.log(`OHIF ${ohif.version} is in place`);
  process.exit(0);
}

const work = mkdtempSync(path.join(tmpdir(), 'ohif-'));
try {
  console.log(`Fetching ${ohif.package}@${ohif.version}…`);
  const out = execFileSync(
    'npm',
    ['pack', `${ohif.package}@${ohif.version}`, '--json', '--pack-destination', work],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const [{ filename }] = JSON.parse(out);
  const tarball = path.join(work, filename);
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  if (integrity !== ohif.integrity) throw new Error(`integrity mismatch for ${filename}: got ${integrity}`);
  const extracted = path.join(work, 'x');
  mkdirSync(extracted);
  execFileSync('tar', ['-xzf', tarball, '-C', extracted, 'package/dist']);
  // Their sample configuration points at public demo servers; ours is served in its place.
  rmSync(path.join(extracted, 'package/dist/app-config.js'), { force: true });
  rmSync(target, { recursive: true, force: true });
  renameSync(path.join(extracted, 'package/dist'), target);
  writeFileSync(marker, release);
  console.log(`OHIF ${ohif.version} ready in ${path.relative(process.cwd(), target) || '.'}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
