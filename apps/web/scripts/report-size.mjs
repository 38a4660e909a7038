// Measures the JS a first visit downloads before any lazy route loads: the entry chunk plus
// everything it imports statically (transitively), as listed in Vite's build manifest.
// Budget: initial JS of the SPA ≤ 250 KiB gzipped. Exits 1 when over budget.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUDGET_KIB = 250;
const distDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const manifest = JSON.parse(readFileSync(join(distDir, '.vite', 'manifest.json'), 'utf8'));

const entries = Object.keys(manifest).filter((key) => manifest[key].isEntry);
if (entries.length === 0) {
  console.error('report-size: no entry chunk in dist/.vite/manifest.json');
  process.exit(1);
}

const seen = new Set();
const files = new Set();
function visit(key) {
  if (seen.has(key)) return;
  seen.add(key);
  const chunk = manifest[key];
  if (!chunk) return;
  if (chunk.file.endsWith('.js')) files.add(chunk.file);
  for (const dep of chunk.imports ?? []) visit(dep);
}
entries.forEach(visit);

let total = 0;
const rows = [];
for (const file of files) {
  const gz = gzipSync(readFileSync(join(distDir, file)), { level: 9 }).length;
  total += gz;
  rows.push([file, gz]);
}
rows.sort((a, b) => b[1] - a[1]);
for (const [file, gz] of rows) console.log(`  ${(gz / 1024).toFixed(1).padStart(7)} KiB  ${file}`);

const kib = total / 1024;
console.log(`Initial JS: ${kib.toFixed(1)} KiB gzipped (budget ${BUDGET_KIB} KiB)`);
if (kib > BUDGET_KIB) {
  console.error(`Initial JS is over budget by ${(kib - BUDGET_KIB).toFixed(1)} KiB`);
  process.exit(1);
}
