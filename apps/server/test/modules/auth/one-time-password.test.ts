import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAdmin } from '../../../src/seed';
import type { Services } from '../../../src/services';
import { createTestContext, type TestContext } from '../../helpers/test-app';

/**
 * The first admin's password is printed once at first start (seed.ts). It is a one-time password:
 * signing in with it reaches only "who am I", sign-out and choosing a new password; every other
 * route answers 403 PASSWORD_CHANGE_REQUIRED until then, and afterwards it no longer signs in.
 */

let ctx: TestContext;
let ip = 0;
const call = (opts: InjectOptions) => ctx.app.inject({ ...opts, remoteAddress: `10.9.0.${++ip}` });

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function login(email: string, password: string) {
  return call({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password, captcha: await ctx.captcha(email) },
  });
}

describe("the first admin's one-time password", () => {
  it('signs in once, to choose a new password, and never again', async () => {
    let printed = '';
    await ensureAdmin({
      ...ctx.services,
      log: { warn: (msg: string) => (printed = msg) } as unknown as Services['log'],
    });
    const oneTime = /one-time password: (\S+)/.exec(printed)?.[1];
    expect(oneTime).toBeTruthy();
    const email = ctx.services.config.adminEmail;

    const first = await login(email, oneTime!);
    expect(first.statusCode, first.body).toBe(200);
    const { id, authToken } = first.json().data as { id: string; authToken: string };
    const headers = { authorization: `Bearer ${authToken}` };

    const me = await call({ method: 'GET', url: '/api/auth/me', headers });
    expect(me.statusCode).toBe(200);
    expect(me.json().passwordChangeRequired).toBe(true);

    // Nothing else answers, admin area included, until the password is changed.
    for (const url of [
      '/api/admin/users',
      `/api/studies/user/${id}`,
      '/api/notifications/all',
      '/api/storage/token',
    ]) {
      const res = await call({ method: 'GET', url, headers });
      expect(res.statusCode, url).toBe(403);
      expect(res.json().code, url).toBe('PASSWORD_CHANGE_REQUIRED');
    }

    const change = (currentPassword: string, newPassword: string) =>
      call({ method: 'POST', url: '/api/auth/password', headers, payload: { currentPassword, newPassword } });
    const same = await change(oneTime!, oneTime!);
    expect(same.statusCode).toBe(400);
    expect(same.json().error).toBe('Choose a password other than the one-time password.');
    expect((await change('Wrong!Passw0rd1', 'Own!Adm1nPassw0rd')).statusCode).toBe(401);
    const changed = await change(oneTime!, 'Own!Adm1nPassw0rd');
    expect(changed.statusCode, changed.body).toBe(200);

    // The same session goes on, now with everything an admin may do.
    const after = await call({ method: 'GET', url: '/api/auth/me', headers });
    expect(after.json().passwordChangeRequired).toBe(false);
    expect((await call({ method: 'GET', url: '/api/admin/users', headers })).statusCode).toBe(200);

    expect((await login(email, oneTime!)).statusCode).toBe(401);
    const again = await login(email, 'Own!Adm1nPassw0rd');
    expect(again.statusCode, again.body).toBe(200);
    const fresh = { authorization: `Bearer ${(again.json().data as { authToken: string }).authToken}` };
    expect((await call({ method: 'GET', url: '/api/admin/users', headers: fresh })).statusCode).toBe(200);
  });
});
