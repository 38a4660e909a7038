// Bundles the server (our code and the shared contracts) into dist/main.js; npm packages stay
// external and load from node_modules. Migrations are copied beside the bundle.
import { build } from 'esbuild';
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';

rmSync('dist', { recursive: true, force: true });
await build({
  // The render pool's workers and the upload prescan's worker load their own entries
  // (src/modules/thumbnails/render-pool.ts, src/modules/ingest/archive-prescan.ts).
  entryPoints: {
    main: 'src/main.ts',
    'render-worker': 'src/modules/thumbnails/render-worker.ts',
    'prescan-worker': 'src/modules/ingest/prescan-worker.ts',
  },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  packages: 'external',
  // Workspace packages are TypeScript sources: bundle them instead of leaving them external.
  // The shared contracts are TypeScript sources: bundle them instead of leaving them external.
  plugins: [
    {
      name: 'bundle-contracts',
      setup(b) {
        b.onResolve({ filter: /^@mi\/contracts\// }, (args) => ({
          path: path.resolve(
            '../../packages/contracts/src',
            `${args.path.slice('@mi/contracts/'.length)}.ts`,
          ),
        }));
      },
    },
  ],
  logLevel: 'warning',
});
cpSync('src/db/migrations', 'dist/migrations', { recursive: true });
// The help centre's seed screenshots (modules/help/seed/help-seed.ts reads them beside the bundle).
cpSync('src/modules/help/seed/images', 'dist/help-images', { recursive: true });
console.log('server built: apps/server/dist/main.js');
