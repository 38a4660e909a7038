import { randomBytes } from 'node:crypto';
import { normalizeEmail } from '@mi/contracts/rules';
import { hashPassword } from './modules/auth';
import type { Services } from './services';

/**
 * The data every installation starts with, applied on each `serve` and by `seed` (each step adds
 * only what is missing, so a later start changes nothing an admin edited): the platform's own
 * automated analysis provider, the analysis catalogue that names it, and the help centre's
 * starting articles. Building services does not seed, so tests copy one seeded database
 * (test/global-setup.ts) instead of seeding in every file.
 */
export async function seedReferenceData(
  services: Pick<Services, 'providers' | 'analysisServices' | 'help' | 'log'>,
): Promise<void> {
  const automatedProviderId = await services.providers.ensureAutomatedProvider();
  // The catalogue names directory providers, so it is seeded after them.
  const seededServices = await services.analysisServices.ensureCatalogue(automatedProviderId);
  if (seededServices) services.log.info({ services: seededServices }, 'analysis service catalogue seeded');
  const seededArticles = await services.help.ensureArticles();
  if (seededArticles) services.log.info({ articles: seededArticles }, 'help articles seeded');
}

/**
 * First start: creates the admin account and prints its one-time password once; signing in with
 * it leads only to choosing a new password. Later starts find the admin and print nothing.
 */
export async function ensureAdmin(
  services: Pick<Services, 'users' | 'config' | 'log' | 'audit'>,
): Promise<void> {
  if (await services.users.hasAdmin()) return;
  const password = `${randomBytes(12).toString('base64url')}A1!`;
  const email = services.config.adminEmail;
  const created = await services.users.insertIfEmailFree({
    email,
    emailNormalized: normalizeEmail(email),
    passwordHash: await hashPassword(password),
    name: 'Administrator',
    role: 'admin',
    accountStatus: 'active',
    emailVerifiedAt: new Date(),
    termsAcceptedAt: new Date(),
    // An operator account: the patient onboarding dialog is not for it.
    welcomeModalShown: true,
    // The printed password signs in once, to choose the admin's own.
    passwordChangeRequired: true,
  });
  if (!created) {
    services.log.warn('ADMIN_EMAIL belongs to an existing non-admin account; no admin was created');
    return;
  }
  await services.audit({
    actorId: null,
    action: 'user.admin_created',
    outcome: 'success',
    targetType: 'user',
    targetId: created.id,
  });
  // Printed once, on purpose: this is the only way to learn the first admin password.
  services.log.warn(`Admin account created: ${email} with one-time password: ${password}  (shown only once)`);
}
