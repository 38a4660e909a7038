import type { UpdateUserBody } from '@mi/contracts/auth';
import { AppError } from '../../http/app-error';
import type { AuditRecorder } from '../audit/audit.service';
import type { RequestMeta } from '../auth/session-issuer';
import type { NewUserRow, UserRow, UsersRepository } from './users.repository';

/** Profile and preference changes (PUT /api/users/{id}): a user edits only their own account. */
export function createUsersService(deps: { users: UsersRepository; audit: AuditRecorder; now: () => Date }) {
  return {
    async updateOwn(
      actor: UserRow,
      targetId: string,
      body: UpdateUserBody,
      meta: RequestMeta,
    ): Promise<UserRow> {
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
      return updated;
    },
  };
}
export type UsersService = ReturnType<typeof createUsersService>;
