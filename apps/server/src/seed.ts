import { randomBytes } from 'node:crypto';
import { normalizeEmail } from '@mi/contracts/rules';
import { hashPassword } from './modules/auth';
import type { Services } from './services';

/**
 * First start: creates the admin account and prints its one-time password once. Later starts
 * find the admin and print nothing.
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
