import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/modules/auth/password';
import { registeredRoutes } from '../helpers/routes';
import { newPatient, type Patient } from '../helpers/studies';
import { createTestContext, registerUser, strongPassword, type TestContext } from '../helpers/test-app';

/**
 * Who before what (http/auth-hook.ts, installRoleGate): admin and professional routes look at the
 * caller before the body, so anyone without the role gets the one answer whatever they send.
 */
let ctx: TestContext;
let patient: Patient;
let professional: Patient;
let admin: Patient;
let adminRoutes: Array<{ method: string; url: string }>;
let professionalRoutes: Array<{ method: string; url: string }>;

const ID = '3f2b8f2e-1d1c-4b7e-9a55-0d5f2d1e7a10';
const fill = (url: string) => url.replace(/:\w+/g, ID).replace(/\*$/, 'x');
const NOT_FOUND = { error: 'Not found', code: 'NOT_FOUND' };

/** Bodies no route accepts: wrong types, unknown fields, not JSON at all, too deep. */
const INVALID_BODIES: Array<{ payload: string; type: string }> = [
  {
    payload: JSON.stringify({ name: 42, unknownField: true, webhookUrl: 7, hidden: 'x' }),
    type: 'application/json',
  },
  { payload: '{"name":', type: 'application/json' },
  { payload: '[]', type: 'application/json' },
  { payload: 'name=x', type: 'application/x-www-form-urlencoded' },
  { payload: JSON.stringify({ x: 'nul\u0000byte' }), type: 'application/json' },
];

async function signIn(email: string, password: string): Promise<Patient> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password, captcha: await ctx.captcha(email) },
  });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.body}`);
  const data = res.json().data as { id: string; authToken: string };
  return { id: data.id, token: data.authToken, auth: { authorization: `Bearer ${data.authToken}` } };
}

beforeAll(async () => {
  ctx = await createTestContext();
  patient = await newPatient(ctx, 'gate-patient@example.com');
  const pro = await registerUser(ctx, 'gate-pro@example.com', {
    extra: {
      role: 'professional',
      license: { number: 'LIC-1', state: 'CA', expiryDate: '2099-01-01' },
      specialty: 'Radiology',
      hospital: 'General Hospital',
    },
  });
  if (pro.statusCode !== 201) throw new Error(`registration failed: ${pro.body}`);
  await ctx.services.users.update(pro.json().data.id as string, { accountStatus: 'active' });
  professional = await signIn('gate-pro@example.com', strongPassword);
  await ctx.services.users.insertIfEmailFree({
    email: 'gate-admin@example.com',
    emailNormalized: 'gate-admin@example.com',
    passwordHash: await hashPassword(strongPassword),
    role: 'admin',
    accountStatus: 'active',
  });
  admin = await signIn('gate-admin@example.com', strongPassword);
  const routes = registeredRoutes(ctx.app);
  adminRoutes = routes.filter((r) => r.url.startsWith('/api/admin/'));
  professionalRoutes = routes.filter((r) => r.url.startsWith('/api/professional/'));
}, 60_000);
afterAll(async () => {
  await ctx?.close();
});

describe('admin routes', () => {
  it('are found in the route table', () => {
    expect(adminRoutes.length).toBeGreaterThan(30);
    expect(adminRoutes).toEqual(
      expect.arrayContaining([
        { method: 'POST', url: '/api/admin/providers' },
        { method: 'PUT', url: '/api/admin/providers/:id' },
        { method: 'POST', url: '/api/admin/services' },
        { method: 'PUT', url: '/api/admin/services/:id' },
      ]),
    );
  });

  it('answer a non-admin the same 404 whatever the body, before reading it', async () => {
    const problems: string[] = [];
    for (const { method, url } of adminRoutes) {
      for (const who of [patient, professional, null]) {
        for (const body of INVALID_BODIES) {
          const res = await ctx.app.inject({
            method: method as 'POST',
            url: fill(url),
            headers: { ...who?.auth, 'content-type': body.type },
            payload: method === 'GET' || method === 'HEAD' ? undefined : body.payload,
          });
          if (res.statusCode !== 404 || res.body !== JSON.stringify(NOT_FOUND))
            problems.push(
              `${who ? who.id.slice(0, 8) : 'anonymous'} ${method} ${url}: ${res.statusCode} ${res.body.slice(0, 120)}`,
            );
        }
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it("still validate an admin's body", async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/admin/providers',
      headers: admin.auth,
      payload: { name: 42 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_ERROR');
  });
});

describe('professional routes', () => {
  it('answer anyone but an active professional before reading the body', async () => {
    expect(professionalRoutes.length).toBeGreaterThan(3);
    const problems: string[] = [];
    for (const { method, url } of professionalRoutes) {
      for (const [who, status] of [
        [patient, 404],
        [admin, 404],
        [null, 401],
      ] as const) {
        for (const body of INVALID_BODIES) {
          const res = await ctx.app.inject({
            method: method as 'POST',
            url: fill(url),
            headers: { ...who?.auth, 'content-type': body.type },
            payload: method === 'GET' ? undefined : body.payload,
          });
          if (res.statusCode !== status || res.json().code === 'VALIDATION_ERROR')
            problems.push(
              `${who ? who.id.slice(0, 8) : 'anonymous'} ${method} ${url}: ${res.statusCode} ${res.body.slice(0, 120)}`,
            );
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  const paths = async (who: Patient | null) => {
    const res = await ctx.app.inject({ url: '/api/docs', headers: who?.auth });
    expect(res.statusCode).toBe(200);
    return Object.keys((res.json() as { paths: Record<string, unknown> }).paths);
  };

  it('is whole for admins', async () => {
    const all = await paths(admin);
    expect(all.some((p) => p.startsWith('/api/admin/'))).toBe(true);
    expect(all).toContain('/api/payments/webhook');
  });

  it('leaves admin and internal operations out for everyone else', async () => {
    for (const who of [null, patient, professional]) {
      const seen = await paths(who);
      expect(seen).toEqual(expect.arrayContaining(['/api/auth/login', '/api/auth/me', '/api/health']));
      expect(seen.filter((p) => p.startsWith('/api/admin'))).toEqual([]);
      expect(seen).not.toContain('/api/payments/webhook');
      expect(seen.filter((p) => p.startsWith('/api/vendors/'))).toEqual([]);
      const doc = (await ctx.app.inject({ url: '/api/docs', headers: who?.auth })).json() as {
        paths: Record<string, Record<string, { tags?: string[] }>>;
      };
      const tagged = Object.values(doc.paths).flatMap((item) =>
        Object.values(item).filter((op) => op.tags?.includes('admin')),
      );
      expect(tagged).toEqual([]);
    }
  });
});
