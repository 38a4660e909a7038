import { PASSWORDS_MISMATCH_MESSAGE } from '@mi/contracts/rules';
import type { z } from 'zod';

/**
 * `confirmPassword` must repeat the password field `passwordKey`. The check runs even while
 * other fields are still invalid, so a mismatch shows with the first submit.
 */
export function withPasswordConfirmation<T extends z.ZodObject>(schema: T, passwordKey = 'password'): T {
  const fields = (value: unknown) => value as Record<string, unknown> | undefined;
  return schema.refine((value) => fields(value)?.[passwordKey] === fields(value)?.confirmPassword, {
    path: ['confirmPassword'],
    message: PASSWORDS_MISMATCH_MESSAGE,
    when: (payload) => {
      const v = fields(payload.value);
      return typeof v?.[passwordKey] === 'string' && typeof v.confirmPassword === 'string';
    },
  });
}
