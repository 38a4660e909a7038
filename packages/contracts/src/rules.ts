import { z } from 'zod';

/** Registration password rule and its exact message. */
export const PASSWORD_MESSAGE =
  'Password must be at least 8 characters, include an uppercase letter, a number, and a special character';
export const PASSWORD_MIN_LENGTH = 8;
/** An empty password field. */
export const PASSWORD_REQUIRED_MESSAGE = 'Password is required';
/** A form's password confirmation differs from the password. */
export const PASSWORDS_MISMATCH_MESSAGE = 'Passwords do not match';

export function isStrongPassword(value: string): boolean {
  return (
    value.length >= PASSWORD_MIN_LENGTH &&
    /[A-Z]/.test(value) &&
    /[0-9]/.test(value) &&
    /[^A-Za-z0-9]/.test(value)
  );
}

export const passwordSchema = z
  .string({ error: PASSWORD_REQUIRED_MESSAGE })
  .min(1, PASSWORD_REQUIRED_MESSAGE)
  .max(256, 'Password is too long')
  .refine(isStrongPassword, PASSWORD_MESSAGE);

/** A standard email pattern. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const emailSchema = z
  .string({ error: 'Email is required' })
  .trim()
  .min(1, 'Email is required')
  .max(254, 'Email is too long')
  .regex(EMAIL_PATTERN, 'Please enter a valid email address');

/** Emails are compared without regard to letter case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Bytes in one GB as the spec counts storage (1024^3). */
export const BYTES_PER_GB = 1024 ** 3;

/** Reset-password rule: 8+ characters, an uppercase letter, a digit, a special character, letters and digits. */
export const RESET_PASSWORD_MESSAGE =
  'Password must be at least 8 characters long, contain at least one uppercase letter, one lowercase letter, one number, and one special character';

export function isStrongResetPassword(value: string): boolean {
  return isStrongPassword(value) && /[A-Za-z]/.test(value) && /[0-9]/.test(value);
}

export const resetPasswordSchema = z
  .string({ error: PASSWORD_REQUIRED_MESSAGE })
  .min(1, PASSWORD_REQUIRED_MESSAGE)
  .max(256, 'Password is too long')
  .refine(isStrongResetPassword, RESET_PASSWORD_MESSAGE);

/** Professional specialties, in the order the form lists them. */
export const SPECIALTIES = [
  'Cardiology',
  'Dermatology',
  'Neurology',
  'Oncology',
  'Pediatrics',
  'Radiology',
  'Surgery',
  'Other',
] as const;
export type Specialty = (typeof SPECIALTIES)[number];

/** Email codes of the second factor: six digits. */
export const MFA_CODE_PATTERN = /^\d{6}$/;
/** MFA resend countdown: seconds before another code may be requested. */
export const MFA_RESEND_COOLDOWN_SECONDS = 30;
