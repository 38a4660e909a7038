import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EXPERIENCE_BUCKETS,
  experienceBucket,
  providerSchema,
  type Provider,
  type ProviderInput,
} from '@mi/contracts/sharing';
import {
  auditEvents,
  notifications,
  professionalProfiles,
  providers as providersTable,
} from '../../../src/db/schema/index';
import {
  NETWORK_ADDS_LIMITED_MESSAGE,
  PROFESSIONAL_ONLY,
} from '../../../src/modules/providers/providers.service';
import {
  completeProfile,
  publishedProfessional,
  verifiedProfessional,
  type DirectoryProfessional,
} from '../../helpers/directory';
import { newPatient, type Patient } from '../../helpers/studies';
import { createTestContext, registerUser, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let ada: Patient;
let bob: Patient;
let dee: Patient;
let admin: Patient;

beforeAll(async () => {
  ctx = await createTestContext();
  ada = await newPatient(ctx, 'ada-providers@example.com');
  bob = await newPatient(ctx, 'bob-providers@example.com');
  dee = await newPatient(ctx, 'dee-providers@example.com');
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

const directory = async (query = '', who: Patient = ada) => {
  const res = await call(who, 'GET', `/api/providers${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Provider[];
};
const names = async (query: string) => (await directory(query)).map((p) => p.name);
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

/** An organisation as an admin adds it (POST /api/admin/providers). */
async function addOrganisation(
  name: string,
  opts: { specialty: string; country: string; city: string; years: string; email: string },
): Promise<string> {
  const res = await call(
    admin,
    'POST',
    '/api/admin/providers',
    input({
      name,
      specialty: opts.specialty,
      yearsOfExperience: opts.years,
      location: { street: '', city: opts.city, state: '', zipCode: '', country: opts.country },
      contactInformation: { email: opts.email, mobile: '', website: '' },
    }),
  );
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

describe('a fresh installation', () => {
  it('lists only the platform’s automated analysis, clearly named so and unrated; starting again adds nothing', async () => {
    const list = await directory();
    expect(list).toHaveLength(1);
    const [automated] = list as [Provider];
    providerSchema.strict().parse(automated);
    expect(automated._id).toBe(automated.id);
    expect(automated).toMatchObject({
      kind: 'automated',
      rating: null,
      ratingCount: 0,
      verified: null,
      demo: false,
      onPlatform: false,
    });
    expect(automated.name).toMatch(/automated/i);
    expect(automated.description).toMatch(/automated/i);
    // Nobody in a user's network yet, and the admin sees the same single entry.
    expect(await network(ada)).toEqual([]);
    const adminList = (await call(admin, 'GET', '/api/admin/providers')).json().data as Array<{ id: string }>;
    expect(adminList.map((p) => p.id)).toEqual([automated.id]);

    // Every start runs it; it finds the entry and adds nothing.
    expect(await ctx.services.providers.ensureAutomatedProvider()).toBe(automated.id);
    expect(await ctx.services.providers.ensureAutomatedProvider()).toBe(automated.id);
    const rows = await ctx.services.database.db
      .select({ id: providersTable.id })
      .from(providersTable)
      .where(eq(providersTable.kind, 'automated'));
    expect(rows).toEqual([{ id: automated.id }]);
    expect(await directory()).toEqual(list);
  });
});

describe('a directory made by admins and verified professionals', () => {
  /** Organisations an admin added and professionals who published their profiles, by name. */
  const org = { northgate: '', harbourview: '', heartline: '', lakeside: '' };
  let hartwell: DirectoryProfessional;
  let morimoto: DirectoryProfessional;
  let raman: DirectoryProfessional;

  beforeAll(async () => {
    org.northgate = await addOrganisation('Northgate Imaging Group', {
      specialty: 'Radiology',
      country: 'United Kingdom',
      city: 'Leeds',
      years: '14',
      email: 'reports@northgate.example.org',
    });
    org.harbourview = await addOrganisation('Harbourview Teleradiology', {
      specialty: 'Radiology',
      country: 'Canada',
      city: 'Halifax',
      years: '10',
      email: 'reads@harbourview.example.net',
    });
    org.heartline = await addOrganisation('Heartline Cardiac Imaging', {
      specialty: 'Cardiology',
      country: 'Canada',
      city: 'Toronto',
      years: '5',
      email: 'desk@heartline.example.org',
    });
    org.lakeside = await addOrganisation('Lakeside Cardiology Clinic', {
      specialty: 'Cardiology',
      country: 'Germany',
      city: 'Konstanz',
      years: '15',
      email: 'office@lakeside.example.net',
    });
    hartwell = await publishedProfessional(ctx, 'amelia.hartwell@example.org', {
      name: 'Dr. Amelia Hartwell',
      licenseState: 'NY',
      specialty: 'Radiology',
      hospital: 'St Mary’s Hospital',
      position: 'Consultant Radiologist',
      profile: {
        yearsOfExperience: '18',
        location: { city: 'London', state: '', country: 'United Kingdom' },
      },
    });
    morimoto = await publishedProfessional(ctx, 'kenji.morimoto@example.org', {
      name: 'Dr. Kenji Morimoto',
      licenseState: 'CA',
      specialty: 'Neurology',
      profile: {
        yearsOfExperience: '3',
        location: { city: 'Osaka', state: '', country: 'Japan' },
        contact: { email: 'neuro-desk@morimoto.example.org', website: 'https://morimoto.example.org' },
      },
    });
    raman = await publishedProfessional(ctx, 'priya.raman@example.org', {
      name: 'Dr. Priya Raman',
      licenseState: 'ON',
      specialty: 'Cardiology',
      profile: {
        yearsOfExperience: '7',
        location: { city: 'Ottawa', state: 'ON', country: 'Canada' },
      },
    });
  }, 60_000);

  describe('what it lists', () => {
    it('lists published profiles, organisations and the automated analysis, by name while unrated', async () => {
      const list = await directory();
      for (const p of list) {
        providerSchema.strict().parse(p);
        expect(p._id).toBe(p.id);
        expect(p.rating, p.name).toBeNull();
        expect(p.ratingCount, p.name).toBe(0);
        expect(p.demo, p.name).toBe(false);
      }
      expect(list.map((p) => [p.name, p.kind])).toEqual([
        ['Automated Analysis (Medical Imaging platform)', 'automated'],
        ['Dr. Amelia Hartwell', 'professional'],
        ['Dr. Kenji Morimoto', 'professional'],
        ['Dr. Priya Raman', 'professional'],
        ['Harbourview Teleradiology', 'organisation'],
        ['Heartline Cardiac Imaging', 'organisation'],
        ['Lakeside Cardiology Clinic', 'organisation'],
        ['Northgate Imaging Group', 'organisation'],
      ]);
      // Professionals receive what is shared with them; an organisation only once linked to one.
      for (const p of list) expect(p.onPlatform, p.name).toBe(p.kind === 'professional');
      for (const p of list.filter((e) => e.kind !== 'professional')) expect(p.verified, p.name).toBeNull();
    });

    it('shows a published profile with its Verified badge: the licence state and when an admin verified it', async () => {
      const entry = (await directory()).find((p) => p.id === hartwell.providerId)!;
      const [licence] = await ctx.services.database.db
        .select({ reviewedAt: professionalProfiles.reviewedAt })
        .from(professionalProfiles)
        .where(eq(professionalProfiles.userId, hartwell.id));
      expect(licence?.reviewedAt).toBeInstanceOf(Date);
      expect(entry).toMatchObject({
        kind: 'professional',
        name: 'Dr. Amelia Hartwell',
        specialty: 'Radiology',
        hospital: 'St Mary’s Hospital',
        position: 'Consultant Radiologist',
        description: completeProfile.description,
        yearsOfExperience: '18',
        credentials: completeProfile.credentials,
        workingHours: completeProfile.workingHours,
        location: { street: '', city: 'London', state: '', zipCode: '', country: 'United Kingdom' },
        verified: { licenseState: 'NY', verifiedAt: licence!.reviewedAt!.toISOString() },
      });
      // The professional's workspace shows the same verification.
      const own = (await call(hartwell, 'GET', '/api/professional/profile')).json();
      expect(own).toMatchObject({
        providerId: hartwell.providerId,
        licenseState: 'NY',
        verifiedAt: entry.verified!.verifiedAt,
      });
      expect(own.publishedAt).not.toBeNull();
      // The account email is never shown; contact details are those the professional chose to show.
      expect(entry.contactInformation).toEqual({ email: '', mobile: null, website: null });
      expect(JSON.stringify(entry)).not.toContain(hartwell.email);
      const shown = (await directory()).find((p) => p.id === morimoto.providerId)!;
      expect(shown.contactInformation).toEqual({
        email: 'neuro-desk@morimoto.example.org',
        mobile: null,
        website: 'https://morimoto.example.org',
      });
      expect(JSON.stringify(shown)).not.toContain(morimoto.email);
    });

    it('does not list a profile before it is published, nor after it is unpublished', async () => {
      const draft = await verifiedProfessional(ctx, 'hidden.draft@example.org', { name: 'Dr. Hidden Draft' });
      const saved = await call(draft, 'PUT', '/api/professional/profile', completeProfile);
      expect(saved.statusCode, saved.body).toBe(200);
      const providerId = saved.json().providerId as string;
      expect(saved.json()).toMatchObject({ publishedAt: null, missing: [] });

      const hidden = async () => {
        expect((await directory()).map((p) => p.id)).not.toContain(providerId);
        expect(await directory('?q=hidden')).toEqual([]);
        // Nobody finds it by its id either: not addable, not shareable, no ratings to read.
        expect((await call(dee, 'POST', '/api/users/providers', { providerId })).statusCode).toBe(404);
        expect((await call(dee, 'GET', `/api/providers/${providerId}/ratings`)).statusCode).toBe(404);
        expect(await ctx.services.providers.findForUser(dee.id, providerId)).toBeUndefined();
      };
      await hidden();

      const published = await call(draft, 'POST', '/api/professional/profile/publish', { published: true });
      expect(published.statusCode, published.body).toBe(200);
      expect((await directory('?q=hidden')).map((p) => [p.id, p.kind])).toEqual([
        [providerId, 'professional'],
      ]);
      const ratings = await call(dee, 'GET', `/api/providers/${providerId}/ratings`);
      expect(ratings.json()).toEqual({ rating: null, ratingCount: 0, data: [] });

      const unpublished = await call(draft, 'POST', '/api/professional/profile/publish', {
        published: false,
      });
      expect(unpublished.statusCode, unpublished.body).toBe(200);
      expect(unpublished.json().publishedAt).toBeNull();
      await hidden();
      expect(await network(dee)).toEqual([]);
    });
  });

  describe('directory filters', () => {
    it('matches name or email in any letter case, specialty, country and experience bucket', async () => {
      expect(await names('?q=HARTWELL')).toEqual(['Dr. Amelia Hartwell']);
      expect(await names('?q=heartLINE')).toEqual(['Heartline Cardiac Imaging']);
      expect(await names('?q=READS%40harbourview.EXAMPLE')).toEqual(['Harbourview Teleradiology']);
      expect(await names('?q=automated')).toEqual(['Automated Analysis (Medical Imaging platform)']);

      expect(await names('?specialty=cardiology')).toEqual([
        'Dr. Priya Raman',
        'Heartline Cardiac Imaging',
        'Lakeside Cardiology Clinic',
      ]);
      expect(await names('?specialty=Neurology')).toEqual(['Dr. Kenji Morimoto']);
      expect(await names('?country=canada')).toEqual([
        'Dr. Priya Raman',
        'Harbourview Teleradiology',
        'Heartline Cardiac Imaging',
      ]);
      expect(await names('?country=United%20Kingdom')).toEqual([
        'Dr. Amelia Hartwell',
        'Northgate Imaging Group',
      ]);

      // Bucket edges: 5 is in 0-5, 10 in 5-10, 15 in 10-15. The automated entry has no experience.
      const buckets: Record<(typeof EXPERIENCE_BUCKETS)[number], string[]> = {
        '0-5': ['Dr. Kenji Morimoto', 'Heartline Cardiac Imaging'],
        '5-10': ['Dr. Priya Raman', 'Harbourview Teleradiology'],
        '10-15': ['Lakeside Cardiology Clinic', 'Northgate Imaging Group'],
        '15+': ['Dr. Amelia Hartwell'],
      };
      for (const bucket of EXPERIENCE_BUCKETS) {
        const list = await directory(`?experience=${encodeURIComponent(bucket)}`);
        expect(
          list.map((p) => p.name),
          bucket,
        ).toEqual(buckets[bucket]);
        expect(list.every((p) => experienceBucket(p.yearsOfExperience) === bucket)).toBe(true);
      }
      expect((await directory('?experience=0-5')).map((p) => p.yearsOfExperience)).toContain('5');
      expect((await directory('?experience=5-10')).map((p) => p.yearsOfExperience)).toContain('10');
      expect((await directory('?experience=10-15')).map((p) => p.yearsOfExperience)).toContain('15');

      expect(await names('?specialty=Radiology&country=United%20Kingdom&experience=15%2B')).toEqual([
        'Dr. Amelia Hartwell',
      ]);
      expect(await names('?specialty=Radiology&country=United%20Kingdom&experience=10-15')).toEqual([
        'Northgate Imaging Group',
      ]);
      expect(await directory('?q=%25')).toEqual([]);
      expect(await directory('?specialty=Cardiology&country=Japan')).toEqual([]);
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
      const second = await byName('Harbourview Teleradiology');
      const added = await call(ada, 'POST', '/api/users/providers', { providerId: first.id });
      expect(added.statusCode, added.body).toBe(200);
      expect(added.json()).toEqual({ message: 'Provider added', data: first });
      expect((await call(ada, 'POST', '/api/users/providers', { providerId: first.id })).statusCode).toBe(
        200,
      );
      await new Promise((r) => setTimeout(r, 5));
      expect((await call(ada, 'POST', '/api/users/providers', { providerId: second.id })).statusCode).toBe(
        200,
      );
      expect((await network(ada)).map((p) => p.name)).toEqual([
        'Harbourview Teleradiology',
        'Dr. Priya Raman',
      ]);
      // Another user's network is their own.
      expect(await network(bob)).toEqual([]);

      const removed = await call(ada, 'DELETE', '/api/users/providers', { providerId: first.id });
      expect(removed.statusCode, removed.body).toBe(200);
      expect(removed.json()).toEqual({ message: 'Provider removed' });
      expect((await network(ada)).map((p) => p.name)).toEqual(['Harbourview Teleradiology']);
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
      expect((await call(ada, 'DELETE', '/api/users/providers', { providerId: unknown })).statusCode).toBe(
        404,
      );
      expect((await call(ada, 'POST', '/api/users/providers', { providerId: 'nope' })).statusCode).toBe(400);
      expect((await call(ada, 'POST', '/api/users/providers', {})).statusCode).toBe(400);
    });

    it("keeps a user's email contacts to that user", async () => {
      const { providers } = ctx.services;
      const contact = await providers.ensureContact(ada.id, 'My.Dentist@example.com');
      expect(contact).toMatchObject({ name: 'My.Dentist@example.com', kind: 'contact', onPlatform: false });
      expect(contact.contactInformation.email).toBe('My.Dentist@example.com');
      // The same email again (any letter case) is the same contact.
      expect((await providers.ensureContact(ada.id, 'my.dentist@EXAMPLE.com')).id).toBe(contact.id);
      expect((await network(ada)).map((p) => p.id)).toEqual([contact.id]);
      expect((await providers.findForUser(ada.id, contact.id))?.id).toBe(contact.id);

      // Not in the directory, and nobody else can see, add, share with or remove it.
      expect((await directory('?q=dentist')).length).toBe(0);
      expect((await directory('?q=dentist', bob)).length).toBe(0);
      expect(await providers.findForUser(bob.id, contact.id)).toBeUndefined();
      expect((await call(bob, 'POST', '/api/users/providers', { providerId: contact.id })).statusCode).toBe(
        404,
      );
      expect((await call(bob, 'DELETE', '/api/users/providers', { providerId: contact.id })).statusCode).toBe(
        404,
      );
      expect((await call(bob, 'GET', `/api/providers/${contact.id}/ratings`)).statusCode).toBe(404);
      await expect(providers.addToNetwork(bob.id, contact.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await network(bob)).toEqual([]);
      // Bob's contact for the same email is his own.
      const bobs = await providers.ensureContact(bob.id, 'my.dentist@example.com');
      expect(bobs.id).not.toBe(contact.id);

      // An email the directory holds is that directory entry, not a new contact: an organisation's,
      // or the account email of a professional who published their profile.
      expect((await providers.ensureContact(ada.id, 'REPORTS@northgate.example.org')).id).toBe(org.northgate);
      expect((await providers.ensureContact(ada.id, 'Kenji.Morimoto@example.org')).id).toBe(
        morimoto.providerId,
      );
      expect((await network(ada)).map((p) => p.id)).toEqual([morimoto.providerId, org.northgate, contact.id]);
      for (const email of ['reports@northgate.example.org', 'kenji.morimoto@example.org']) {
        const rows = await ctx.services.database.db
          .select()
          .from(providersTable)
          .where(eq(providersTable.emailNormalized, email));
        expect(rows, email).toHaveLength(1);
      }

      for (const id of [morimoto.providerId, org.northgate, contact.id])
        await call(ada, 'DELETE', '/api/users/providers', { providerId: id });
      expect(await network(ada)).toEqual([]);
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
      const before = await directory();
      const someId = org.lakeside;
      for (const who of [ada, hartwell, null]) {
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
      // Nothing changed.
      expect(await directory()).toEqual(before);
    });

    it('creates, edits, retires and restores organisations, refusing a duplicate email; each change is audited', async () => {
      const created = await call(admin, 'POST', '/api/admin/providers', input());
      expect(created.statusCode, created.body).toBe(201);
      const entry = created.json().data;
      expect(entry).toMatchObject({
        name: 'Dr. Test Provider',
        kind: 'organisation',
        yearsOfExperience: '6',
        rating: null,
        ratingCount: 0,
        verified: null,
        retiredAt: null,
        linkedUser: null,
        contactInformation: { email: 'test.provider@example.org', website: 'https://test.example.org' },
      });
      expect((await directory('?q=test.provider')).map((p) => p.id)).toEqual([entry.id]);

      const dup = await call(admin, 'POST', '/api/admin/providers', input({ name: 'Copy' }));
      expect(dup.statusCode).toBe(409);
      const clash = await call(admin, 'PUT', `/api/admin/providers/${entry.id}`, {
        ...input(),
        contactInformation: { ...input().contactInformation, email: 'REPORTS@northgate.example.org' },
      });
      expect(clash.statusCode).toBe(409);
      expect(clash.json().error).toMatch(/Northgate Imaging Group/);
      // A rating is earned from patients: the admin form has none.
      const rated = await call(admin, 'POST', '/api/admin/providers', {
        ...input({ contactInformation: { ...input().contactInformation, email: 'rated@example.org' } }),
        rating: 4.5,
      });
      expect(rated.statusCode).toBe(400);
      expect(rated.json().error).toMatch(/rating/);
      const invalid = await call(admin, 'POST', '/api/admin/providers', {
        ...input({ contactInformation: { ...input().contactInformation, email: 'invalid@example.org' } }),
        yearsOfExperience: '100',
      });
      expect(invalid.statusCode).toBe(400);
      expect((await directory('?q=rated@')).length + (await directory('?q=invalid@')).length).toBe(0);

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
      expect((await call(ada, 'POST', '/api/users/providers', { providerId: entry.id })).statusCode).toBe(
        200,
      );
      const retired = await call(admin, 'POST', `/api/admin/providers/${entry.id}/retire`);
      expect(retired.statusCode).toBe(200);
      expect(retired.json().data.retiredAt).not.toBeNull();
      expect((await directory('?q=edited')).length).toBe(0);
      expect((await network(ada)).map((p) => p.id)).not.toContain(entry.id);
      expect((await call(ada, 'POST', '/api/users/providers', { providerId: entry.id })).statusCode).toBe(
        404,
      );
      expect(await ctx.services.providers.findForUser(ada.id, entry.id)).toBeUndefined();
      const adminList = (await call(admin, 'GET', '/api/admin/providers')).json().data as Array<{
        id: string;
        retiredAt: string | null;
      }>;
      expect(adminList.at(-1)).toMatchObject({ id: entry.id });
      // A retired entry keeps its email: a new one cannot take it.
      expect((await call(admin, 'POST', '/api/admin/providers', input({ name: 'Later' }))).statusCode).toBe(
        409,
      );

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

    it('links an organisation only to an approved professional who confirmed the email; a professional’s own profile is theirs', async () => {
      const target = org.lakeside;
      const link = (email: string, id = target) =>
        call(admin, 'PUT', `/api/admin/providers/${id}/link`, { email });
      const onPlatform = async () => (await byName('Lakeside Cardiology Clinic')).onPlatform;
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
      expect(await onPlatform()).toBe(false);

      const readyId = await professional('becker@example.com');
      await ctx.services.users.update(readyId, { accountStatus: 'active', emailVerifiedAt: new Date() });
      const linked = await link('Becker@example.com');
      expect(linked.statusCode, linked.body).toBe(200);
      expect(linked.json().data.linkedUser).toMatchObject({ id: readyId, email: 'becker@example.com' });
      expect(await onPlatform()).toBe(true);
      expect((await ctx.services.providers.findForUser(ada.id, target))?.linkedUserId).toBe(readyId);
      const told = await ctx.services.database.db
        .select()
        .from(notifications)
        .where(eq(notifications.userId, readyId));
      expect(told.map((n) => n.title)).toEqual(['Provider profile linked']);

      // One account is one organisation.
      const twice = await link('becker@example.com', org.heartline);
      expect(twice.statusCode).toBe(409);
      expect(twice.json().error).toMatch(/Lakeside Cardiology Clinic/);
      // A professional's own published profile does not count as that one organisation.
      const ramanLinked = await link('priya.raman@example.org', org.heartline);
      expect(ramanLinked.statusCode, ramanLinked.body).toBe(200);
      expect((await byName('Heartline Cardiac Imaging')).onPlatform).toBe(true);
      expect((await byName('Dr. Priya Raman')).id).toBe(raman.providerId);

      // A professional's own profile is theirs: an admin neither edits nor links it.
      for (const res of [
        await call(admin, 'PUT', `/api/admin/providers/${hartwell.providerId}`, input({ name: 'Renamed' })),
        await link('becker@example.com', hartwell.providerId),
        await call(admin, 'DELETE', `/api/admin/providers/${hartwell.providerId}/link`),
      ]) {
        expect(res.statusCode, res.body).toBe(409);
        expect(res.json().error).toBe(PROFESSIONAL_ONLY);
      }
      expect((await byName('Dr. Amelia Hartwell')).onPlatform).toBe(true);

      const unlinked = await call(admin, 'DELETE', `/api/admin/providers/${target}/link`);
      expect(unlinked.statusCode).toBe(200);
      expect(unlinked.json().data.linkedUser).toBeNull();
      expect(await onPlatform()).toBe(false);
      expect((await call(admin, 'DELETE', `/api/admin/providers/${org.heartline}/link`)).statusCode).toBe(
        200,
      );
      expect((await byName('Heartline Cardiac Imaging')).onPlatform).toBe(false);

      const events = await ctx.services.database.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.actorId, admin.id), eq(auditEvents.targetId, target)));
      expect(events.map((e) => `${e.action}:${e.outcome}`)).toEqual(
        expect.arrayContaining(['provider.link:failure', 'provider.link:success', 'provider.unlink:success']),
      );
    });
  });
});
