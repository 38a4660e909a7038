import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, found from this file whether it runs from src/ (tsx) or dist/ (bundle). */
function findRepoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, 'apps', 'web', 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  return process.cwd();
}

export const repoRoot = findRepoRoot();
/** The built SPA, served by `serve` in production. */
export const webDistDir = path.join(repoRoot, 'apps', 'web', 'dist');
