import type { UpdateUserBody } from '@mi/contracts/auth';
import { AppError } from '../../http/app-error';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession } from '../auth';
import type { FreshProofRule } from '../auth';
import type { RequestMeta } from '../../http/request-meta';
import type { MailService } from '../mail';
import { mfaDisabledEmail } from '../mail';
import type { NewUserRow, UserRow, UsersRepository } from '../accounts';

/**
 * Profile and preference changes (PUT /api/users/{id}): a user edits only their own account.
 * Turning two-factor sign-in off or changing its method is a security setting: it needs a recent
 * proof of identity (modules/auth/fresh-proof.ts), and turning it off is emailed to the owner.
 */
export function createUsersService(deps: {
  users: UsersRepository;
  audit: AuditRecorder;
  mail: MailService;
  requireFreshProof: FreshProofRule;
  appUrl: string;
  now: () => Date;
}) {
  return {
    async updateOwn(
      auth: Pick<AuthenticatedSession, 'user' | 'session'>,
      targetId: string,
      body: UpdateUserBody,
      meta: RequestMeta,
    ): Promise<UserRow> {
      const actor = auth.user;
      // Someone else's id looks exactly like a missing one.
      if (targetId !== actor.id) {
        await deps.audit({
          actorId: actor.id,
          actorRole: actor.role,
          action: 'user.update',
          outcome: 'denied',
          targetType: 'user',
          targetId: targetId.slice(0, 64),
          requestId: meta.requestId,
          ip: meta.ip,
        });
        throw new AppError('NOT_FOUND', 'Not found');
      }
      const at = deps.now();
      if (body.dateOfBirth && body.dateOfBirth > at.toISOString().slice(0, 10)) {
        throw new AppError('VALIDATION_ERROR', 'Date of birth cannot be in the future');
      }
      if (body.mfaMethod === 'totp' && !actor.totpSecret) {
        throw new AppError('BAD_REQUEST', 'Set up an authenticator app before choosing it.');
      }
      const turningOff = body.mfaEnabled === false && actor.mfaEnabled;
      // Choosing the first method (with two-factor turned on) is no change of one.
      const methodChange =
        body.mfaMethod !== undefined && actor.mfaMethod !== null && body.mfaMethod !== actor.mfaMethod;
      if (turningOff || methodChange) await deps.requireFreshProof(auth, 'auth.mfa.settings', meta);
      const changes: Partial<NewUserRow> = {};
      for (const key of [
        'name',
        'dateOfBirth',
        'mobilePhone',
        'emailNotifications',
        'welcomeModalShown',
        'mfaEnabled',
        'mfaMethod',
      ] as const) {
        if (body[key] !== undefined) (changes as Record<string, unknown>)[key] = body[key];
      }
      if (body.shareMedicalData !== undefined && body.shareMedicalData !== actor.shareMedicalData) {
        changes.shareMedicalData = body.shareMedicalData;
        changes.shareMedicalDataUpdatedAt = at;
      }
      // Turning two-factor on with no method set also sets the method to email (see docs/spec-deviations.md).
      if (body.mfaEnabled === true && !(body.mfaMethod ?? actor.mfaMethod)) changes.mfaMethod = 'email';
      if (Object.keys(changes).length === 0) return actor;
      const updated = await deps.users.update(actor.id, { ...changes, updatedAt: at });
      if (!updated) throw new AppError('NOT_FOUND', 'Not found');
      const mfaChanged = updated.mfaEnabled !== actor.mfaEnabled || updated.mfaMethod !== actor.mfaMethod;
      await deps.audit({
        actorId: actor.id,
        actorRole: actor.role,
        action: mfaChanged ? 'auth.mfa.settings' : 'user.update',
        outcome: 'success',
        targetType: 'user',
        targetId: actor.id,
        requestId: meta.requestId,
        ip: meta.ip,
        details: {
          fields: Object.keys(changes),
          ...(mfaChanged ? { mfaEnabled: updated.mfaEnabled, mfaMethod: updated.mfaMethod } : {}),
          ...(changes.shareMedicalData !== undefined ? { shareMedicalData: changes.shareMedicalData } : {}),
        },
      });
      if (actor.mfaEnabled && !updated.mfaEnabled)
        await deps.mail.send(updated.email, mfaDisabledEmail({ appUrl: deps.appUrl }));
      return updated;
    },
  };
}
export type UsersService = ReturnType<typeof createUsersService>;
