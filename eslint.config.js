import { readdirSync } from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import checkFile from 'eslint-plugin-check-file';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/** Is `file` the folder `dir` or inside it? */
const isInside = (file, dir) => file === dir || file.startsWith(dir + path.sep);

/**
 * `architecture/import-boundaries`: which folders a file may import from. Options:
 * `{ aliases: { '@/': '/abs/src' }, zones: [{ target, targetExcept?, from, except?, allow?, message }] }`
 * with absolute paths; a file inside `target` (and not inside a `targetExcept` folder) may not import
 * (statically, dynamically, by re-export or in an `import('…')` type) anything inside a `from`
 * folder unless it is inside an `except` folder or is exactly an `allow` path (a folder, or a file
 * without its extension: `modules/auth` and `modules/auth/index` both name the module's index.ts).
 * Relative and aliased imports are resolved to files; package imports are never restricted.
 */
const importBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Keep imports within the architecture: which folders may import which.' },
    schema: [
      {
        type: 'object',
        properties: { aliases: { type: 'object' }, zones: { type: 'array' } },
        additionalProperties: false,
      },
    ],
    messages: { forbidden: "'{{source}}': {{message}}" },
  },
  create(context) {
    const { aliases = {}, zones = [] } = context.options[0] ?? {};
    const file = path.resolve(context.filename);
    const zonesHere = zones.filter(
      (zone) => isInside(file, zone.target) && !(zone.targetExcept ?? []).some((dir) => isInside(file, dir)),
    );
    if (zonesHere.length === 0) return {};

    const resolve = (source) => {
      if (source.startsWith('.')) return path.resolve(path.dirname(file), source);
      const alias = Object.keys(aliases).find((prefix) => source.startsWith(prefix));
      return alias ? path.resolve(aliases[alias], source.slice(alias.length)) : null;
    };
    const check = (node) => {
      if (!node || node.type !== 'Literal' || typeof node.value !== 'string') return;
      const resolved = resolve(node.value);
      if (!resolved) return;
      const target = resolved.replace(/\.(js|ts|tsx)$/, '');
      const zone = zonesHere.find(
        (z) =>
          z.from.some((dir) => isInside(target, dir)) &&
          !(z.except ?? []).some((dir) => isInside(target, dir)) &&
          !(z.allow ?? []).includes(target),
      );
      if (zone)
        context.report({ node, messageId: 'forbidden', data: { source: node.value, message: zone.message } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      // `import('../x').T` in a type position.
      TSImportType: (node) => {
        const arg = node.source ?? node.argument;
        check(arg?.type === 'TSLiteralType' ? arg.literal : arg);
      },
    };
  },
};

const architecture = { rules: { 'import-boundaries': importBoundaries } };

// The web app's layout: app/ composes features; features are independent of each
// other; components/, lib/, hooks/ and config/ are shared and know nothing of features or app/.
const webSrc = path.join(import.meta.dirname, 'apps/web/src');
const web = (folder) => path.join(webSrc, folder);
const webFeatures = readdirSync(web('features'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const adminParts = readdirSync(web('features/admin'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'shared')
  .map((entry) => entry.name);
const webImportZones = [
  ...webFeatures.map((feature) => ({
    target: web(`features/${feature}`),
    from: [web('features'), web('app')],
    except: [web(`features/${feature}`)],
    message: `features/${feature} may import neither another feature nor app/: compose features in app/, or move what they share to components/, lib/ or hooks/.`,
  })),
  // The admin console's parts (users, audit, directory, catalogue, …) are features inside
  // features/admin: none imports another, and what they share lives in features/admin/shared.
  ...adminParts.map((part) => ({
    target: web(`features/admin/${part}`),
    from: [web('features/admin')],
    except: [web(`features/admin/${part}`), web('features/admin/shared')],
    message: `features/admin/${part} may import no other part of the admin console: move what they share to features/admin/shared (or components/, lib/, hooks/).`,
  })),
  {
    target: web('features/admin/shared'),
    from: [web('features/admin')],
    except: [web('features/admin/shared')],
    message:
      'features/admin/shared is shared by every part of the admin console, so it imports none of them.',
  },
  ...['components', 'lib', 'hooks', 'config'].map((shared) => ({
    target: web(shared),
    from: [web('features'), web('app')],
    message: `${shared}/ is shared by every feature, so it may import neither features/ nor app/: pass what it needs in from app/.`,
  })),
];

// The server's layers (apps/server/src, README "Architecture map"): routes → service → repository.
// Only repositories, db/, the job queue and the composition root reach the database; a route plugin
// gets its own module's service and plain config values, never the whole Services object.
const serverSrc = (glob) => `apps/server/src/${glob}`;
const databaseMessage =
  'Only repositories (*.repository.ts), db/, jobs/queue.ts and the composition root (services.ts, main.ts) may reach the database, types included: give this code a repository.';
const serverDatabaseImports = [
  { regex: '^(drizzle-orm|pg|@electric-sql/pglite)(/.*)?$', message: databaseMessage },
  { regex: '(^|/)db/(client|schema)(\\.js)?(/.*)?$', message: databaseMessage },
];
const serverRouteImports = [
  {
    regex: '^(\\./|(\\.\\./)+)services(\\.js)?$',
    message:
      "A route plugin gets its own module's service (and plain config values), not the whole Services object: http/app.ts passes them in.",
  },
  {
    regex: '\\.repository(\\.js)?$',
    message: "Routes call their own module's service; repositories sit behind services.",
  },
  {
    // Route plugins live in modules/<name>/: `../other/…` is another module.
    regex: '^\\.\\./[^./]|(^|/)modules/',
    message:
      'A route of modules/<name> imports only from its own module (and http/, contracts, packages): what it needs from another module comes through its own service.',
  },
];
// `import('../../db/client').Db` in a type position.
const databaseTypeImport = {
  selector:
    'TSImportType[argument.literal.value=/^(drizzle-orm|@electric-sql.pglite)|^pg$|db.(client|schema)/]',
  message: databaseMessage,
};
// "Every admin change needs a recent sign-in" lives in the service layer (modules/admin/recent-sign-in.ts:
// services call `requireRecentSignIn` or wrap their changes in `adminChanges`), so a route cannot
// forget it and a job cannot skip it. A route passes the admin's session on; it never checks recency.
const adminRecencyMessage =
  "A route does not check an admin's recent sign-in: pass requireAdmin(req) to the service, whose admin changes check it (modules/admin/recent-sign-in.ts).";
const adminRecencyInRoutes = [
  // The rule itself, called, passed on or renamed.
  { selector: "Identifier[name='requireRecentSignIn']", message: adminRecencyMessage },
  {
    // A hand-made check: the age of the session, the window, or the rule's error code.
    selector: "MemberExpression[object.property.name='session'][property.name='createdAt']",
    message: adminRecencyMessage,
  },
  { selector: "Identifier[name='REAUTH_WINDOW_MINUTES']", message: adminRecencyMessage },
  { selector: "Literal[value='REAUTH_REQUIRED']", message: adminRecencyMessage },
];
// Between server modules: modules/<name>/index.ts is a module's public face. Any file of the server
// (other modules, http/, jobs/, the composition root) imports a module through it only; files inside
// a module import their own files directly. Tests (apps/server/test) may reach a module's files.
const serverSrcDir = path.join(import.meta.dirname, 'apps/server/src');
const serverModulesDir = path.join(serverSrcDir, 'modules');
const serverModules = readdirSync(serverModulesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const serverModuleZones = serverModules.map((name) => {
  const dir = path.join(serverModulesDir, name);
  return {
    target: serverSrcDir,
    targetExcept: [dir],
    from: [dir],
    allow: [dir, path.join(dir, 'index')],
    message: `modules/${name} is used through its public face only: import '…/modules/${name}' (its index.ts), and export what is needed there.`,
  };
});
const serverBoundaries = [
  {
    name: 'server/module-faces',
    files: [serverSrc('**/*.ts')],
    plugins: { architecture },
    rules: { 'architecture/import-boundaries': ['error', { zones: serverModuleZones }] },
  },
  {
    name: 'server/database-access',
    files: [serverSrc('**/*.ts')],
    ignores: [
      serverSrc('**/*.repository.ts'),
      serverSrc('db/**'),
      serverSrc('jobs/queue.ts'),
      serverSrc('services.ts'),
      serverSrc('main.ts'),
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: serverDatabaseImports }],
      'no-restricted-syntax': ['error', databaseTypeImport],
    },
  },
  {
    name: 'server/route-plugins',
    files: [serverSrc('**/*.routes.ts')],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [...serverDatabaseImports, ...serverRouteImports] },
      ],
      // Replaces the list of server/database-access for route files, so it repeats its selector.
      'no-restricted-syntax': ['error', databaseTypeImport, ...adminRecencyInRoutes],
    },
  },
  {
    name: 'server/file-names',
    files: [serverSrc('**/*.ts')],
    plugins: { 'check-file': checkFile },
    rules: {
      // 'dcmjs.d.ts', 'studies.routes.ts': only the part before the first dot is the name.
      'check-file/filename-naming-convention': [
        'error',
        { [serverSrc('**/*.ts')]: 'KEBAB_CASE' },
        { ignoreMiddleExtensions: true },
      ],
      'check-file/folder-naming-convention': ['error', { [serverSrc('**/')]: 'KEBAB_CASE' }],
    },
  },
];

// No server function over ~100 lines: a long factory or procedure is split along its reasons to change
// (cohesive sub-factories, repositories by table, named steps). Route tables read as lists and are
// exempt.
const serverFunctionLength = {
  name: 'server/function-length',
  files: [serverSrc('**/*.ts')],
  ignores: [serverSrc('**/*.routes.ts'), serverSrc('**/dicomweb-*routes.ts')],
  rules: {
    'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }],
  },
};

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'data/**',
      '**/migrations/**',
      'test-results/**',
      'apps/viewer/ohif/**',
      'apps/viewer/ohif.next/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // Web app: import boundaries between its folders, and kebab-case file and folder names.
  {
    files: ['apps/web/src/**/*.{ts,tsx}'],
    plugins: { architecture },
    rules: {
      'architecture/import-boundaries': ['error', { aliases: { '@/': webSrc }, zones: webImportZones }],
    },
  },
  {
    // Stylesheets are not linted as code; this processor lets the file-name rules see them.
    files: ['apps/web/src/**/*.css'],
    processor: 'check-file/eslint-processor-check-file',
  },
  {
    files: ['apps/web/src/**/*.{ts,tsx,css}'],
    plugins: { 'check-file': checkFile },
    rules: {
      'check-file/filename-naming-convention': [
        'error',
        { 'apps/web/src/**/*.{ts,tsx,css}': 'KEBAB_CASE' },
        // 'vite-env.d.ts', 'date-range.test.ts': only the part before the first dot is the name.
        { ignoreMiddleExtensions: true },
      ],
      'check-file/folder-naming-convention': ['error', { 'apps/web/src/**/': 'KEBAB_CASE' }],
    },
  },
  // Server: module faces, layers and file names (see serverBoundaries).
  ...serverBoundaries,
  serverFunctionLength,
);
