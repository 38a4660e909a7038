import { expect } from 'vitest';
import type { Patient } from './studies';
import { registerUser, strongPassword, type TestContext } from './test-app';

/** A verified professional as the directory knows them: signed in, with their profile's provider id. */
export interface DirectoryProfessional extends Patient {
  email: string;
  providerId: string;
}

/** What a professional registers with (the facts an admin verifies); each has a default. */
export interface RegistrationOptions {
  name?: string;
  licenseState?: string;
  specialty?: string;
  hospital?: string;
  position?: string;
}

/** A professional's profile as they complete it: `completeProfile` with these parts replaced. */
export type ProfileOverrides = Partial<Omit<typeof completeProfile, 'location' | 'contact'>> & {
  location?: Partial<(typeof completeProfile)['location']>;
  contact?: Partial<(typeof completeProfile)['contact']>;
};

/**
 * Registers a medical professional and verifies the account as an admin would (active, email
 * confirmed, licence reviewed), then signs them in.
 */
export async function verifiedProfessional(
  ctx: TestContext,
  email: string,
  opts: RegistrationOptions = {},
): Promise<Patient> {
  const res = await registerUser(ctx, email, {
    extra: {
      role: 'professional',
      name: opts.name ?? 'Thomas Becker',
      license: { number: 'MD-1', state: opts.licenseState ?? 'BE', expiryDate: '2031-01-31' },
      specialty: opts.specialty ?? 'Radiology',
      hospital: opts.hospital ?? 'General',
      position: opts.position ?? 'Attending',
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().data.id as string;
  await ctx.services.users.update(id, { accountStatus: 'active', emailVerifiedAt: new Date() });
  await ctx.services.users.markProfessionalReviewed(id, id, new Date());
  const login = await ctx.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password: strongPassword, captcha: await ctx.captcha(email) },
  });
  expect(login.statusCode, login.body).toBe(200);
  const token = login.json().data.authToken as string;
  return { id, token, auth: { authorization: `Bearer ${token}` } };
}

/** A complete profile, as a professional fills it in from their workspace. */
export const completeProfile = {
  description: 'Reads CT and X-ray of the chest and abdomen.',
  yearsOfExperience: '12',
  credentials: ['MD', 'Board Certified in Diagnostic Radiology'],
  workingHours: { weekdays: '08:00-18:00', weekends: 'Closed' },
  location: { street: '', city: 'Berlin', state: 'BE', zipCode: '', country: 'Germany' },
  contact: { email: '', mobile: '', website: '' },
};

/**
 * A verified professional who completed (`completeProfile`, with `profile` replacing parts of it)
 * and published their profile, offering nothing yet: what the directory lists.
 */
export async function publishedProfessional(
  ctx: TestContext,
  email: string,
  opts: RegistrationOptions & { profile?: ProfileOverrides } = {},
): Promise<DirectoryProfessional> {
  const pro = await verifiedProfessional(ctx, email, opts);
  const { location, contact, ...rest } = opts.profile ?? {};
  const profile = {
    ...completeProfile,
    ...rest,
    location: { ...completeProfile.location, ...location },
    contact: { ...completeProfile.contact, ...contact },
  };
  const call = (method: 'PUT' | 'POST', url: string, payload: object) =>
    ctx.app.inject({ method, url, headers: pro.auth, payload });
  const saved = await call('PUT', '/api/professional/profile', profile);
  expect(saved.statusCode, saved.body).toBe(200);
  const published = await call('POST', '/api/professional/profile/publish', { published: true });
  expect(published.statusCode, published.body).toBe(200);
  return { ...pro, email, providerId: published.json().providerId as string };
}

/**
 * A verified professional who completed and published their profile and offers the named
 * services (by name, at their list price unless `price` says otherwise): what the directory and
 * GET /api/services list, and whose orders they really accept and deliver.
 */
export async function offeringProfessional(
  ctx: TestContext,
  email: string,
  opts: RegistrationOptions & { profile?: ProfileOverrides; services?: string[]; price?: number } = {},
): Promise<DirectoryProfessional> {
  const pro = await publishedProfessional(ctx, email, opts);
  const call = (method: 'GET' | 'PUT', url: string, payload?: object) =>
    ctx.app.inject({ method, url, headers: pro.auth, ...(payload ? { payload } : {}) });
  const offers = (await call('GET', '/api/professional/offers')).json() as Array<{
    serviceId: string;
    serviceName: string;
    defaultPrice: number;
    typicalTime: string;
    supportedModalities: string[];
  }>;
  for (const name of opts.services ?? ['Expert Review', 'Complete Analysis Package']) {
    const service = offers.find((o) => o.serviceName === name);
    expect(service, `a professional may offer ${name}`).toBeDefined();
    const res = await call('PUT', `/api/professional/offers/${service!.serviceId}`, {
      price: opts.price ?? service!.defaultPrice,
      turnaround: service!.typicalTime,
      modalities: service!.supportedModalities,
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  return pro;
}
