import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

// The rules between server modules bite: eslint.config.js (architecture/import-boundaries, "module
// faces"; no-restricted-syntax on route files, "recent sign-in in services") and
// .dependency-cruiser.cjs (no import cycles; `npm run lint` runs both).
const repo = path.resolve(import.meta.dirname, '../../..');
const src = (file: string) => path.join(repo, 'apps/server/src', file);

const eslint = new ESLint({ cwd: repo, overrideConfigFile: path.join(repo, 'eslint.config.js') });
const lintAs = async (file: string, code: string) => {
  const [result] = await eslint.lintText(code, { filePath: src(file) });
  return result!.messages.filter((m) => m.ruleId === 'architecture/import-boundaries');
};

describe('module faces (architecture/import-boundaries)', () => {
  it("refuses a deep import of another module's file, from a module, http/ or the composition root", async () => {
    const deep = "import { createUsersRepository } from '../accounts/users.repository';\n";
    const [inModule] = await lintAs('modules/sharing/example.ts', deep);
    expect(inModule?.message).toMatch(/modules\/accounts is used through its public face only/);

    expect(
      await lintAs('modules/sharing/example.ts', "export { hashPassword } from '../auth/password';\n"),
    ).toHaveLength(1);
    expect(
      await lintAs('modules/sharing/example.ts', "type T = import('../auth/auth.service').AuthService;\n"),
    ).toHaveLength(1);
    expect(
      await lintAs('modules/sharing/example.ts', "const m = () => import('../ingest/process-study.job');\n"),
    ).toHaveLength(1);
    expect(
      await lintAs('http/example.ts', "import { authRoutes } from '../modules/auth/auth.routes';\n"),
    ).toHaveLength(1);
    expect(
      await lintAs('example.ts', "import { createAuthService } from './modules/auth/auth.service';\n"),
    ).toHaveLength(1);
  });

  it("allows a module's index.ts, and a module's own files", async () => {
    expect(
      await lintAs('modules/sharing/example.ts', "import { createUsersRepository } from '../accounts';\n"),
    ).toEqual([]);
    expect(
      await lintAs('modules/sharing/example.ts', "import type { UserRow } from '../accounts/index';\n"),
    ).toEqual([]);
    expect(await lintAs('http/example.ts', "import { authRoutes } from '../modules/auth';\n")).toEqual([]);
    expect(await lintAs('modules/auth/example.ts', "import { hashPassword } from './password';\n")).toEqual(
      [],
    );
  });
});

const adminRecencyRefusals = async (file: string, code: string) => {
  const [result] = await eslint.lintText(code, { filePath: src(file) });
  return result!.messages
    .filter((m) => m.ruleId === 'no-restricted-syntax')
    .filter((m) => /does not check an admin's recent sign-in/.test(m.message));
};

describe('recent sign-in for admin changes lives in services (no-restricted-syntax on *.routes.ts)', () => {
  const route = (handler: string) =>
    "import { requestMeta, requireAdmin } from '../../http/auth-hook';\n" +
    'export const routes = (svc: any) => async (app: any) => {\n' +
    `  app.post('/admin/x', async (req: any) => {\n${handler}\n  });\n};\n`;

  it('refuses a route-layer admin recency check, called or hand-made', async () => {
    const calls = route(
      "    const session = requireAdmin(req);\n    await svc.requireRecentSignIn(session, 'x.change', requestMeta(req));\n    return svc.change(session.user);",
    );
    const [refused] = await adminRecencyRefusals('modules/help/help.routes.ts', calls);
    expect(refused?.line).toBe(5);
    expect(
      await adminRecencyRefusals(
        'modules/vendors/vendors-admin.routes.ts',
        route(
          "    const recentAdmin = requireRecentSignIn;\n    await recentAdmin(requireAdmin(req), 'x', requestMeta(req));",
        ),
      ),
    ).toHaveLength(1);
    expect(
      await adminRecencyRefusals(
        'modules/vendors/vendors-admin.routes.ts',
        route("    await requireRecentSignIn(requireAdmin(req), 'x', requestMeta(req));"),
      ),
    ).toHaveLength(1);
    const handMade = route(
      "    const s = requireAdmin(req);\n    if (Date.now() - s.session.createdAt.getTime() > REAUTH_WINDOW_MINUTES * 60_000)\n      throw new AppError('REAUTH_REQUIRED', 'again');",
    );
    expect(await adminRecencyRefusals('modules/services/catalogue-admin.routes.ts', handMade)).toHaveLength(
      3,
    );
  });

  it("allows a route that hands the admin's session to the service, and the check in a service", async () => {
    const passes = route('    return svc.change(requireAdmin(req), requestMeta(req));');
    expect(await adminRecencyRefusals('modules/help/help.routes.ts', passes)).toEqual([]);
    const inService =
      'export const svc = (rule: any) => ({\n' +
      "  async change(admin: any, meta: any) {\n    await rule.requireRecentSignIn(admin, 'x.change', meta);\n  },\n});\n";
    expect(await adminRecencyRefusals('modules/help/help.service.ts', inService)).toEqual([]);
  });
});

const cycles = (result: ICruiseResult) =>
  result.summary.violations.filter((v) => v.rule.name === 'no-circular').map((v) => v.cycle);

const cruiseWithRepoConfig = async (dir: string) => {
  // The CommonJS config the CLI (`npm run lint:cycles`) reads.
  const config = createRequire(import.meta.url)(path.join(repo, '.dependency-cruiser.cjs'));
  const { output } = await cruise([dir], {
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    ...config.options,
  });
  return output as ICruiseResult;
};

describe('no import cycles (.dependency-cruiser.cjs)', () => {
  const fixture = mkdtempSync(path.join(tmpdir(), 'cycle-'));
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  it('finds a cycle, type-only imports included', async () => {
    writeFileSync(path.join(fixture, 'a.ts'), "import { b } from './b';\nexport const a = () => b;\n");
    writeFileSync(path.join(fixture, 'b.ts'), "import type { C } from './c';\nexport const b: C = 1;\n");
    writeFileSync(
      path.join(fixture, 'c.ts'),
      "import type { a } from './a';\nexport type C = ReturnType<typeof a> | 1;\n",
    );
    const found = cycles(await cruiseWithRepoConfig(fixture));
    expect(found.length).toBeGreaterThan(0);
  });

  it('finds none in the server', async () => {
    expect(cycles(await cruiseWithRepoConfig(path.join(repo, 'apps/server/src')))).toEqual([]);
  });
});
