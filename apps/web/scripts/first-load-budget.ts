// The first load: what index.html makes the browser fetch before any route's own code, i.e. the
// entry chunk, every chunk it imports statically (transitively) and their CSS, gzipped. The build
// fails above the budget, or when code that should load on demand (the admin console with help
// authoring, payments, the calendar) has slipped into it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

export const FIRST_LOAD_BUDGET_KIB = 180;

/** The parts of Rolldown's output description this check reads. */
interface OutputItem {
  type: 'chunk' | 'asset';
  fileName: string;
  isEntry?: boolean;
  imports?: string[];
  moduleIds?: string[];
  viteMetadata?: { importedCss: Set<string> };
}

const ON_DEMAND = [
  {
    what: 'the admin console and help authoring',
    module: /\/src\/features\/admin\/|\/node_modules\/@tiptap\//,
  },
  { what: 'payments', module: /\/src\/features\/payments\/|\/node_modules\/@stripe\// },
  { what: 'the calendar', module: /\/node_modules\/react-day-picker\/|date-range-calendar/ },
];

/**
 * What a bundle's first load holds: files with their gzipped sizes, and the modules bundled into
 * them. Takes Rolldown's output description and a reader of the written files (sizes are of
 * what is served, after every plugin has had its say).
 */
export function measureFirstLoad(bundle: Record<string, OutputItem>, readFile: (fileName: string) => Buffer) {
  const gzipKib = (fileName: string) => gzipSync(readFile(fileName), { level: 9 }).length / 1024;
  const entry = Object.values(bundle).find((item) => item.type === 'chunk' && item.isEntry);
  if (!entry) throw new Error('first-load-budget: the build has no entry chunk');
  const files = new Map<string, number>();
  const modules: string[] = [];
  const visit = (fileName: string): void => {
    const chunk = bundle[fileName];
    if (!chunk || files.has(fileName)) return;
    files.set(fileName, gzipKib(fileName));
    modules.push(...(chunk.moduleIds ?? []));
    for (const css of chunk.viteMetadata?.importedCss ?? []) {
      if (!files.has(css)) files.set(css, gzipKib(css));
    }
    (chunk.imports ?? []).forEach(visit);
  };
  visit(entry.fileName);
  const totalKib = [...files.values()].reduce((sum, kib) => sum + kib, 0);
  return { files, modules, totalKib };
}

/** Vite plugin: reports the first load after `vite build` and fails the build when it breaks the rules above. */
export function firstLoadBudget() {
  return {
    name: 'first-load-budget',
    apply: 'build',
    writeBundle(
      this: { error(message: string): never },
      options: { dir?: string },
      bundle: Record<string, OutputItem>,
    ) {
      const { files, modules, totalKib } = measureFirstLoad(bundle, (fileName) =>
        readFileSync(path.join(options.dir ?? 'dist', fileName)),
      );
      const rows = [...files].sort((a, b) => b[1] - a[1]);
      for (const [file, kib] of rows) console.log(`  ${kib.toFixed(1).padStart(7)} KiB  ${file}`);
      console.log(
        `First load (JS + CSS): ${totalKib.toFixed(1)} KiB gzipped (budget ${FIRST_LOAD_BUDGET_KIB} KiB)`,
      );
      const problems: string[] = [];
      if (totalKib > FIRST_LOAD_BUDGET_KIB)
        problems.push(`it is ${(totalKib - FIRST_LOAD_BUDGET_KIB).toFixed(1)} KiB over the budget`);
      for (const rule of ON_DEMAND) {
        const found = modules.filter((id) => rule.module.test(id));
        if (found.length > 0)
          problems.push(
            `${rule.what} must load on demand, but the first load holds ${found.slice(0, 3).join(', ')}`,
          );
      }
      if (problems.length > 0) this.error(`First load: ${problems.join('; ')}`);
    },
  };
}
