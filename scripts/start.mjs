// `npm start`: builds the SPA and the server if they are missing or older than their sources,
// then runs `serve` in production mode in this same process.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function needsBuild(output, sources) {
  if (!existsSync(output)) return true;
  const built = statSync(output).mtimeMs;
  return sources.some((s) => newestMtime(path.join(root, s)) > built);
}

const web = path.join(root, 'apps/web/dist/index.html');
if (needsBuild(web, ['apps/web/src', 'apps/web/public', 'packages/contracts/src'])) {
  console.log('Building the web app…');
  execSync('npm run build -w apps/web', { cwd: root, stdio: 'inherit' });
}
const server = path.join(root, 'apps/server/dist/main.js');
if (needsBuild(server, ['apps/server/src', 'packages/contracts/src'])) {
  console.log('Building the server…');
  execSync('npm run build -w apps/server', { cwd: root, stdio: 'inherit' });
}

// The viewer is OHIF's released build, fetched from npm and optimised once (apps/viewer/fetch-ohif.mjs,
// which does nothing when the pinned release is in place with the current optimisation).
execSync('node apps/viewer/fetch-ohif.mjs', { cwd: root, stdio: 'inherit' });

process.env.NODE_ENV ??= 'production';
process.argv[2] = process.argv[2] ?? 'serve';
await import(pathToFileURL(server).href);
