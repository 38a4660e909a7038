import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPECIALTIES } from '@mi/contracts/rules';
import {
  EXPERIENCE_BUCKETS,
  experienceBucket,
  providerSchema,
  type Provider,
  type ProviderInput,
} from '@mi/contracts/sharing';
import { auditEvents, notifications, providers as providersTable } from '../../../src/db/schema/index';
import { PROVIDER_CATALOGUE } from '../../../src/modules/providers/provider-catalogue';
import { NETWORK_ADDS_LIMITED_MESSAGE } from '../../../src/modules/providers/providers.service';
import { newPatient, type Patient } from '../../helpers/studies';
import { createTestContext, registerUser, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let ada: Patient;
let bob: Patient;
let admin: Patient;

beforeAll(async () => {
  ctx = await createTestContext();
  ada = await newPatient(ctx, 'ada-providers@example.com');
  bob = await newPatient(ctx, 'bob-providers@example.com');
  admin = await newPatient(ctx, 'admin-providers@example.com');
  await ctx.services.users.update(admin.id, { role: 'admin' });
});
afterAll(async () => {
  await ctx?.close();
});

const call = (
  who: Patient | null,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: Record<string, unknown>,
) =>
  ctx.app.inject({
    method,
    url,
    headers: who ? who.auth : {},
    ...(payload ? { payload } : {}),
  });

const directory = async (query = '') => {
  const res = await call(ada, 'GET', `/api/providers${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Provider[];
};
const network = async (who: Patient) => {
  const res = await call(who, 'GET', '/api/users/providers');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Provider[];
};
const byName = async (name: string) => (await directory()).find((p) => p.name === name)!;

const input = (overrides: Partial<ProviderInput> = {}): ProviderInput => ({
  name: 'Dr. Test Provider',
  specialty: 'Radiology',
  description: 'Reads test images.',
  yearsOfExperience: '6',
  rating: 4.2,
  credentials: ['MD'],
  location: {
    street: '1 Test Street',
    city: 'Testville',
    state: 'TS',
    zipCode: '00000',
    country: 'Testland',
  },
  academicProfile: { rank: 'Lecturer', numberOfPublications: 3 },
  contactInformation: {
    email: 'test.provider@example.org',
    mobile: '+1 555 0100',
    website: 'https://test.example.org',
  },
  workingHours: { weekdays: '09:00–17:00', weekends: 'Closed' },
  ...overrides,
});

describe('the seeded directory', () => {
  it('holds the fictional catalogue with every field filled, and seeding again adds nothing', async () => {
    const list = await directory();
    expect(list.length).toBe(PROVIDER_CATALOGUE.length);
    expect(list.length).toBeGreaterThanOrEqual(22);
    for (const p of list) {
      providerSchema.strict().parse(p);
      expect(p._id).toBe(p.id);
      for (const value of [
        p.specialty,
        p.description,
        p.yearsOfExperience,
        p.rating,
        p.location,
        p.academicProfile,
        p.workingHours,
      ])
        expect(value, p.name).not.toBeNull();
      expect(p.credentials.length, p.name).toBeGreaterThan(0);
      expect(
        Object.values(p.location!).every((v) => v.length > 0),
        p.name,
      ).toBe(true);
      expect(p.academicProfile!.rank.length).toBeGreaterThan(0);
      expect(p.workingHours!.weekdays && p.workingHours!.weekends, p.name).toBeTruthy();
      expect(p.contactInformation.email).toMatch(/@example\.(org|net)$/);
      expect(p.contactInformation.mobile).toBeTruthy();
      expect(p.contactInformation.website).toMatch(/^https:\/\/[a-z0-9-]+\.example\.(org|net)$/);
      expect(p.rating!).toBeGreaterThanOrEqual(3.5);
      expect(p.rating!).toBeLessThanOrEqual(5);
      expect(SPECIALTIES as readonly string[]).toContain(p.specialty);
      expect(p.onPlatform).toBe(false);
    }
    expect(new Set(list.map((p) => p.location!.country)).size).toBeGreaterThanOrEqual(6);
    expect(new Set(list.map((p) => experienceBucket(p.yearsOfExperience)))).toEqual(
      new Set(EXPERIENCE_BUCKETS),
    );
    expect(new Set(list.map((p) => p.specialty)).size).toBeGreaterThanOrEqual(5);
    // Sorted by name for the Add Existing Provider dialog.
    const names = list.map((p) => p.name.toLowerCase());
    expect(names).toEqual([...names].sort());

    expect(await ctx.services.providers.ensureDirectory()).toBe(0);
    expect(await directory()).toHaveLength(list.length);
  });
});

describe('directory filters', () => {
  it('matches name or email in any letter case, specialty, country and experience bucket', async () => {
    expect((await directory('?q=HARTWELL')).map((p) => p.name)).toEqual(['Dr. Amelia Hartwell']);
    expect((await directory('?q=kenji.morimoto%40EXAMPLE')).map((p) => p.name)).toEqual([
      'Dr. Kenji Morimoto',
    ]);
    const cardiology = await directory('?specialty=cardiology');
    expect(cardiology.length).toBeGreaterThan(1);
    expect(cardiology.every((p) => p.specialty === 'Cardiology')).toBe(true);
    const canada = await directory('?country=Canada');
    expect(canada.length).toBeGreaterThan(1);
    expect(canada.every((p) => p.location?.country === 'Canada')).toBe(true);
    for (const bucket of EXPERIENCE_BUCKETS) {
      const list = await directory(`?experience=${encodeURIComponent(bucket)}`);
      expect(list.length, bucket).toBeGreaterThan(0);
      expect(list.every((p) => experienceBucket(p.yearsOfExperience) === bucket)).toBe(true);
    }
    // Bucket edges: 5 is in 0-5, 10 in 5-10, 15 in 10-15.
    expect((await directory('?experience=0-5')).map((p) => p.yearsOfExperience)).toContain('5');
    expect((await directory('?experience=5-10')).map((p) => p.yearsOfExperience)).toContain('10');
    expect((await directory('?experience=10-15')).map((p) => p.yearsOfExperience)).toContain('15');
    const combined = await directory('?specialty=Radiology&country=United%20Kingdom&experience=15%2B');
    expect(combined.map((p) => p.name)).toEqual(['Dr. Amelia Hartwell']);
    expect(await directory('?q=%25')).toEqual([]);
    expect((await call(ada, 'GET', '/api/providers?experience=3-4')).statusCode).toBe(400);
  });

  it('needs a signed-in, active account', async () => {
    expect((await call(null, 'GET', '/api/providers')).statusCode).toBe(401);
    expect((await call(null, 'GET', '/api/users/providers')).statusCode).toBe(401);
  });
});

describe('the trusted network', () => {
  it('adds idempotently, lists newest first, removes, and audits each change', async () => {
    expect(await network(ada)).toEqual([]);
    const first = await byName('Dr. Priya Raman');
    const second = await byName('Dr. Luca Bianchi');
    const added = await call(ada, 'POST', '/api/users/providers', { providerId: first.id });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json()).toEqual({ message: 'Provider added', data: first });
    expect((await call(ada, 'POST', '/api/users/providers', { providerId: first.id })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 5));
    expect((await call(ada, 'POST', '/api/users/providers', { providerId: second.id })).statusCode).toBe(200);
    expect((await network(ada)).map((p) => p.name)).toEqual(['Dr. Luca Bianchi', 'Dr. Priya Raman']);
    // Another user's network is their own.
    expect(await network(bob)).toEqual([]);

    const removed = await call(ada, 'DELETE', '/api/users/providers', { providerId: first.id });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json()).toEqual({ message: 'Provider removed' });
    expect((await network(ada)).map((p) => p.name)).toEqual(['Dr. Luca Bianchi']);
    // The specification's client spells it with a trailing slash; removing twice is fine.
    const again = await call(ada, 'DELETE', '/api/users/providers/', { providerId: first.id });
    expect(again.statusCode, again.body).toBe(200);
    expect((await call(ada, 'DELETE', '/api/users/providers/', { providerId: second.id })).statusCode).toBe(
      200,
    );
    expect(await network(ada)).toEqual([]);

    const events = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorId, ada.id), eq(auditEvents.targetType, 'provider')));
    const actions = events.filter((e) => e.outcome === 'success').map((e) => `${e.action} ${e.targetId}`);
    // The second add of the same provider changed nothing, so it is not a second event.
    expect(actions.sort()).toEqual(
      [
        `provider.network_add ${first.id}`,
        `provider.network_add ${second.id}`,
        `provider.network_remove ${first.id}`,
        `provider.network_remove ${second.id}`,
      ].sort(),
    );
  });

  it('answers 404 for an unknown provider and 400 for a malformed id', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const res = await call(ada, 'POST', '/api/users/providers', { providerId: unknown });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('Provider not found.');
    expect((await call(ada, 'DELETE', '/api/users/providers', { providerId: unknown })).statusCode).toBe(404);
    expect((await call(ada, 'POST', '/api/users/providers', { providerId: 'nope' })).statusCode).toBe(400);
    expect((await call(ada, 'POST', '/api/users/providers', {})).statusCode).toBe(400);
  });

  it("keeps a user's email contacts to that user", async () => {
    const { providers } = ctx.services;
    const contact = await providers.ensureContact(ada.id, 'My.Dentist@example.com');
    expect(contact).toMatchObject({ name: 'My.Dentist@example.com', onPlatform: false });
    expect(contact.contactInformation.email).toBe('My.Dentist@example.com');
    // The same email again (any letter case) is the same contact.
    expect((await providers.ensureContact(ada.id, 'my.dentist@EXAMPLE.com')).id).toBe(contact.id);
    expect((await network(ada)).map((p) => p.id)).toEqual([contact.id]);
    expect((await providers.findForUser(ada.id, contact.id))?.id).toBe(contact.id);

    // Not in the directory, and nobody else can see, add, share with or remove it.
    expect((await directory('?q=dentist')).length).toBe(0);
    expect(await providers.findForUser(bob.id, contact.id)).toBeUndefined();
    expect((await call(bob, 'POST', '/api/users/providers', { providerId: contact.id })).statusCode).toBe(
      404,
    );
    expect((await call(bob, 'DELETE', '/api/users/providers', { providerId: contact.id })).statusCode).toBe(
      404,
    );
    await expect(providers.addToNetwork(bob.id, contact.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await network(bob)).toEqual([]);
    // Bob's contact for the same email is his own.
    const bobs = await providers.ensureContact(bob.id, 'my.dentist@example.com');
    expect(bobs.id).not.toBe(contact.id);

    // An email the directory holds is that directory entry, not a new contact.
    const hartwell = await byName('Dr. Amelia Hartwell');
    expect((await providers.ensureContact(ada.id, 'AMELIA.HARTWELL@example.org')).id).toBe(hartwell.id);
    expect((await network(ada)).map((p) => p.id)).toEqual([hartwell.id, contact.id]);
    const contacts = await ctx.services.database.db
      .select()
      .from(providersTable)
      .where(eq(providersTable.emailNormalized, 'amelia.hartwell@example.org'));
    expect(contacts).toHaveLength(1);

    await call(ada, 'DELETE', '/api/users/providers', { providerId: hartwell.id });
    await call(ada, 'DELETE', '/api/users/providers', { providerId: contact.id });
  });

  it('limits how fast one user adds providers, with a clear message', async () => {
    const cy = await newPatient(ctx, 'cy-providers@example.com');
    const list = await directory();
    let limited;
    for (let i = 0; i < 61; i++) {
      const res = await call(cy, 'POST', '/api/users/providers', { providerId: list[i % list.length]!.id });
      if (res.statusCode !== 200) {
        limited = { i, res };
        break;
      }
    }
    expect(limited?.i).toBe(60);
    expect(limited?.res.statusCode).toBe(429);
    expect(limited?.res.json().error).toBe(NETWORK_ADDS_LIMITED_MESSAGE);
    // Others are not slowed down.
    expect((await call(ada, 'POST', '/api/users/providers', { providerId: list[0]!.id })).statusCode).toBe(
      200,
    );
    await call(ada, 'DELETE', '/api/users/providers', { providerId: list[0]!.id });
  });
});

describe('admin: the directory', () => {
  it('is missing (404) for everyone but admins', async () => {
    const someId = (await directory())[0]!.id;
    for (const who of [ada, null]) {
      expect((await call(who, 'GET', '/api/admin/providers')).statusCode).toBe(404);
      expect((await call(who, 'POST', '/api/admin/providers', input())).statusCode).toBe(404);
      expect((await call(who, 'PUT', `/api/admin/providers/${someId}`, input())).statusCode).toBe(404);
      expect((await call(who, 'POST', `/api/admin/providers/${someId}/retire`)).statusCode).toBe(404);
      expect((await call(who, 'POST', `/api/admin/providers/${someId}/restore`)).statusCode).toBe(404);
      expect(
        (await call(who, 'PUT', `/api/admin/providers/${someId}/link`, { email: 'x@example.com' }))
          .statusCode,
      ).toBe(404);
      expect((await call(who, 'DELETE', `/api/admin/providers/${someId}/link`)).statusCode).toBe(404);
    }
    expect((await byName((await directory())[0]!.name)).name).toBeTruthy();
  });

  it('creates, edits, retires and restores entries, refusing a duplicate email; each change is audited', async () => {
    const created = await call(admin, 'POST', '/api/admin/providers', input());
    expect(created.statusCode, created.body).toBe(201);
    const entry = created.json().data;
    expect(entry).toMatchObject({
      name: 'Dr. Test Provider',
      yearsOfExperience: '6',
      retiredAt: null,
      linkedUser: null,
      contactInformation: { email: 'test.provider@example.org', website: 'https://test.example.org' },
    });
    expect((await directory('?q=test.provider')).map((p) => p.id)).toEqual([entry.id]);

    const dup = await call(admin, 'POST', '/api/admin/providers', input({ name: 'Copy' }));
    expect(dup.statusCode).toBe(409);
    const clash = await call(admin, 'PUT', `/api/admin/providers/${entry.id}`, {
      ...input(),
      contactInformation: { ...input().contactInformation, email: 'AMELIA.HARTWELL@example.org' },
    });
    expect(clash.statusCode).toBe(409);
    const invalid = await call(admin, 'POST', '/api/admin/providers', { ...input(), rating: 7 });
    expect(invalid.statusCode).toBe(400);

    const edited = await call(admin, 'PUT', `/api/admin/providers/${entry.id}`, {
      ...input({ name: 'Dr. Edited Provider', yearsOfExperience: '16', description: '' }),
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().data).toMatchObject({
      name: 'Dr. Edited Provider',
      yearsOfExperience: '16',
      description: null,
    });

    // A user adds it; retiring hides it from the directory and the network, and blocks adding it.
    expect((await call(ada, 'POST', '/api/users/providers', { providerId: entry.id })).statusCode).toBe(200);
    const retired = await call(admin, 'POST', `/api/admin/providers/${entry.id}/retire`);
    expect(retired.statusCode).toBe(200);
    expect(retired.json().data.retiredAt).not.toBeNull();
    expect((await directory('?q=edited')).length).toBe(0);
    expect((await network(ada)).map((p) => p.id)).not.toContain(entry.id);
    expect((await call(ada, 'POST', '/api/users/providers', { providerId: entry.id })).statusCode).toBe(404);
    expect(await ctx.services.providers.findForUser(ada.id, entry.id)).toBeUndefined();
    const adminList = (await call(admin, 'GET', '/api/admin/providers')).json().data as Array<{
      id: string;
      retiredAt: string | null;
    }>;
    expect(adminList.at(-1)).toMatchObject({ id: entry.id });

    expect((await call(admin, 'POST', `/api/admin/providers/${entry.id}/restore`)).statusCode).toBe(200);
    expect((await network(ada)).map((p) => p.id)).toContain(entry.id);
    await call(ada, 'DELETE', '/api/users/providers', { providerId: entry.id });

    expect(
      (await call(admin, 'PUT', '/api/admin/providers/00000000-0000-4000-8000-000000000000', input()))
        .statusCode,
    ).toBe(404);
    // A user's contact is not a directory entry.
    const contact = await ctx.services.providers.ensureContact(bob.id, 'someone@example.com');
    expect((await call(admin, 'POST', `/api/admin/providers/${contact.id}/retire`)).statusCode).toBe(404);

    const events = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorId, admin.id), eq(auditEvents.targetId, entry.id)));
    expect(events.map((e) => e.action)).toEqual(
      expect.arrayContaining(['provider.create', 'provider.update', 'provider.retire', 'provider.restore']),
    );
    expect(events.find((e) => e.action === 'provider.update')?.details).toMatchObject({
      fields: expect.arrayContaining(['name', 'yearsOfExperience', 'description']),
    });
  });

  it('links an entry only to an approved professional who confirmed the email', async () => {
    const target = await byName('Dr. Thomas Becker');
    const link = (email: string) => call(admin, 'PUT', `/api/admin/providers/${target.id}/link`, { email });
    const professional = async (email: string) => {
      const res = await registerUser(ctx, email, {
        extra: {
          role: 'professional',
          name: 'Thomas Becker',
          license: { number: 'MD-1', state: 'BE', expiryDate: '2031-01-31' },
          specialty: 'Cardiology',
          hospital: 'Charité',
          position: 'Attending',
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data.id as string;
    };

    expect((await link('nobody@example.com')).statusCode).toBe(422);
    expect((await link('ada-providers@example.com')).json().error).toBe(
      'No medical professional account has this email.',
    );
    const pendingId = await professional('pending-becker@example.com');
    await ctx.services.users.update(pendingId, { emailVerifiedAt: new Date() });
    const pending = await link('pending-becker@example.com');
    expect(pending.statusCode).toBe(422);
    expect(pending.json().error).toMatch(/not been approved/);

    const unverifiedId = await professional('unverified-becker@example.com');
    await ctx.services.users.update(unverifiedId, { accountStatus: 'active' });
    const unverified = await link('unverified-becker@example.com');
    expect(unverified.statusCode).toBe(422);
    expect(unverified.json().error).toMatch(/not confirmed/);
    expect((await byName('Dr. Thomas Becker')).onPlatform).toBe(false);

    const readyId = await professional('becker@example.com');
    await ctx.services.users.update(readyId, { accountStatus: 'active', emailVerifiedAt: new Date() });
    const linked = await link('Becker@example.com');
    expect(linked.statusCode, linked.body).toBe(200);
    expect(linked.json().data.linkedUser).toMatchObject({ id: readyId, email: 'becker@example.com' });
    expect((await byName('Dr. Thomas Becker')).onPlatform).toBe(true);
    expect((await ctx.services.providers.findForUser(ada.id, target.id))?.linkedUserId).toBe(readyId);
    const told = await ctx.services.database.db
      .select()
      .from(notifications)
      .where(eq(notifications.userId, readyId));
    expect(told.map((n) => n.title)).toEqual(['Provider profile linked']);

    // One account is one directory entry.
    const other = await byName('Dr. Grace Mensah');
    const twice = await call(admin, 'PUT', `/api/admin/providers/${other.id}/link`, {
      email: 'becker@example.com',
    });
    expect(twice.statusCode).toBe(409);

    const unlinked = await call(admin, 'DELETE', `/api/admin/providers/${target.id}/link`);
    expect(unlinked.statusCode).toBe(200);
    expect(unlinked.json().data.linkedUser).toBeNull();
    expect((await byName('Dr. Thomas Becker')).onPlatform).toBe(false);

    const events = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorId, admin.id), eq(auditEvents.targetId, target.id)));
    expect(events.map((e) => `${e.action}:${e.outcome}`)).toEqual(
      expect.arrayContaining(['provider.link:failure', 'provider.link:success', 'provider.unlink:success']),
    );
  });
});
