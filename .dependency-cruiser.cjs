/**
 * Import cycles (`npm run lint:cycles`, part of `npm run lint`; apps/server/test/architecture.test.ts
 * proves the check finds one). Type-only imports count too: a type cycle between two modules is the
 * same coupling as a value cycle, only erased at build time. The server has none. The web app is run
 * from apps/web (for its `@/` alias) with the cycles it already had listed in
 * .dependency-cruiser-known-violations.json (regenerate with `--output-type baseline` as a cycle is
 * removed); any new one fails.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles: move what both sides need into a module (or kernel file) both may import.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|migrations)/' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] },
  },
};
