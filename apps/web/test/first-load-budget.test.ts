import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIRST_LOAD_BUDGET_KIB, firstLoadBudget } from '../scripts/first-load-budget';

/** Writes the files of a pretend build and runs the plugin's check on it, as `vite build` would. */
function check(
  chunks: Array<{ file: string; bytes: Buffer; entry?: boolean; imports?: string[]; modules?: string[] }>,
) {
  const dir = mkdtempSync(path.join(tmpdir(), 'first-load-'));
  const bundle: Record<string, unknown> = {};
  for (const c of chunks) {
    writeFileSync(path.join(dir, c.file), c.bytes);
    bundle[c.file] = {
      type: 'chunk',
      fileName: c.file,
      isEntry: c.entry ?? false,
      imports: c.imports ?? [],
      moduleIds: c.modules ?? [],
    };
  }
  const plugin = firstLoadBudget();
  const context = {
    error(message: string): never {
      throw new Error(message);
    },
  };
  plugin.writeBundle.call(context, { dir }, bundle as never);
}

// Random bytes do not compress, so their gzipped size is about their size.
const kib = (n: number) => randomBytes(n * 1024);

describe('the first-load budget (vite build)', () => {
  it('passes a first load within the budget, counting statically imported chunks but not lazy ones', () => {
    expect(() =>
      check([
        { file: 'index.js', bytes: kib(100), entry: true, imports: ['vendor.js'] },
        { file: 'vendor.js', bytes: kib(60) },
        { file: 'admin.js', bytes: kib(400), modules: ['/app/src/features/admin/admin-console.tsx'] },
      ]),
    ).not.toThrow();
  });

  it('fails the build above the budget', () => {
    expect(() =>
      check([
        { file: 'index.js', bytes: kib(120), entry: true, imports: ['vendor.js'] },
        { file: 'vendor.js', bytes: kib(FIRST_LOAD_BUDGET_KIB - 100) },
      ]),
    ).toThrow(/over the budget/);
  });

  it('fails the build when the admin console, payments or the calendar are in the first load', () => {
    for (const module of [
      '/app/src/features/admin/help-rich-text-editor.tsx',
      '/app/node_modules/@stripe/stripe-js/dist/index.mjs',
      '/app/node_modules/react-day-picker/dist/esm/DayPicker.js',
    ])
      expect(() =>
        check([
          { file: 'index.js', bytes: kib(10), entry: true, imports: ['shared.js'] },
          { file: 'shared.js', bytes: kib(10), modules: [module] },
        ]),
      ).toThrow(/must load on demand/);
  });
});
