import { z } from 'zod';
import { emailSchema, passwordSchema, resetPasswordSchema, SPECIALTIES } from './rules';

export const roleSchema = z.enum(['patient', 'professional', 'admin']);
export type Role = z.infer<typeof roleSchema>;

/** A user account as the API returns it: profile, preferences, storage use, role and account status. */
export const userSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  email: z.string(),
  role: roleSchema,
  accountStatus: z.enum(['active', 'pending', 'rejected', 'disabled']),
  /** Why an admin turned a professional application down (null unless rejected). */
  rejectionReason: z.string().nullable(),
  dateOfBirth: z.string().nullable(),
  mobilePhone: z.string().nullable(),
  shareMedicalData: z.boolean(),
  mfaEnabled: z.boolean(),
  mfaMethod: z.enum(['email', 'totp']).nullable(),
  /** An authenticator app is enrolled, so 'totp' may be chosen as the method. */
  totpEnrolled: z.boolean(),
  emailNotifications: z.boolean(),
  smsNotifications: z.boolean(),
  welcomeModalShown: z.boolean(),
  emailVerified: z.boolean(),
  /** When the terms were accepted (registration); null for accounts made without the form. */
  termsAcceptedAt: z.string().nullable(),
  /** When the sharing consent (shareMedicalData) was last given or withdrawn. */
  shareMedicalDataUpdatedAt: z.string().nullable(),
  uploadLimits: z.object({ currentStorageGB: z.number(), maxStorageGB: z.number() }),
  createdAt: z.string(),
  /** The account has a password (Google-only accounts have none). */
  hasPassword: z.boolean(),
  /** The account signs in with Google too (or only). */
  googleLinked: z.boolean(),
  /** Signed in with a one-time password: a new one must be chosen before anything else. */
  passwordChangeRequired: z.boolean(),
});
export type User = z.infer<typeof userSchema>;

export const specialtySchema = z.enum(SPECIALTIES, { error: 'Specialty is required' });

/** A professional's licence (asked by /register/medical). */
export const licenseSchema = z.strictObject({
  number: z
    .string({ error: 'License number is required' })
    .trim()
    .min(1, 'License number is required')
    .max(100),
  state: z.string({ error: 'License state is required' }).trim().min(1, 'License state is required').max(100),
  expiryDate: z.iso.date({ error: 'License expiry date is required' }),
});
export type License = z.infer<typeof licenseSchema>;

/** Messages of the professional's required fields, shared by the payload's rules and the form. */
export const PHONE_REQUIRED_MESSAGE = 'Phone number is required';
export const HOSPITAL_REQUIRED_MESSAGE = 'Hospital/clinic affiliation is required';

/** The registration payload's fields without the rules that tie them together; forms pick theirs from it. */
export const registerFieldsSchema = z.strictObject({
  email: emailSchema,
  password: passwordSchema,
  name: z.string().trim().min(1, 'Name is required').max(200),
  role: z.enum(['patient', 'professional']).default('patient'),
  mobilePhone: z.string().trim().max(40).optional(),
  dateOfBirth: z.iso.date().optional(),
  license: licenseSchema.optional(),
  specialty: specialtySchema.optional(),
  hospital: z.string().trim().max(200).optional(),
  position: z.string().trim().max(200).optional(),
  acceptTerms: z.literal(true, { error: 'You must accept the terms and conditions' }),
  captcha: z.string().max(10_000).optional(),
  /** An emailed invitation's token: single use, for the invited email and the roles it allows. */
  referral: z.string().max(200).optional(),
});

/**
 * POST /api/auth/register body. The role may be patient or professional, never admin; a
 * professional also sends the licence, specialty, hospital and position and a phone number.
 */
export const registerBodySchema = registerFieldsSchema.superRefine((v, ctx) => {
  if (v.role !== 'professional') return;
  if (!v.mobilePhone)
    ctx.addIssue({ code: 'custom', path: ['mobilePhone'], message: PHONE_REQUIRED_MESSAGE });
  if (!v.license) ctx.addIssue({ code: 'custom', path: ['license'], message: 'License number is required' });
  if (!v.specialty) ctx.addIssue({ code: 'custom', path: ['specialty'], message: 'Specialty is required' });
  if (!v.hospital) ctx.addIssue({ code: 'custom', path: ['hospital'], message: HOSPITAL_REQUIRED_MESSAGE });
});
export type RegisterBody = z.infer<typeof registerBodySchema>;

/**
 * Fields only the registration forms have: the name is asked as first and last name, the
 * password is typed twice, and the forms require what the payload leaves optional (a patient's
 * mobile phone; a professional's phone, hospital and position).
 */
export const registrationFormFieldsSchema = z.object({
  firstName: z.string().trim().min(1, 'First name is required').max(100),
  lastName: z.string().trim().min(1, 'Last name is required').max(100),
  /** Compared with the password by the form (PASSWORDS_MISMATCH_MESSAGE). */
  confirmPassword: z.string(),
  mobilePhone: z.string().trim().min(1, 'Mobile phone is required').max(40),
  phone: z.string().trim().min(1, PHONE_REQUIRED_MESSAGE).max(40),
  hospital: z.string().trim().min(1, HOSPITAL_REQUIRED_MESSAGE).max(200),
  position: z.string().trim().min(1, 'Position is required').max(200),
});

export const loginBodySchema = z.strictObject({
  email: z.string().trim().min(1, 'Email is required').max(254),
  password: z.string().min(1, 'Password is required').max(256),
  captcha: z.string().max(10_000).optional(),
});
export type LoginBody = z.infer<typeof loginBodySchema>;

export const loginResponseSchema = z.object({
  message: z.string(),
  data: z.object({
    id: z.string(),
    email: z.string(),
    mfaEnabled: z.boolean(),
    /** With mfaEnabled: which second factor /mfa/verify expects. */
    mfaMethod: z.enum(['email', 'totp']).optional(),
    /**
     * With mfaEnabled: the short-lived pending-login token /mfa/verify and /mfa/resend need. The
     * browser also gets it as an httpOnly cookie; API clients send it back in the body.
     */
    mfaToken: z.string().optional(),
    accountStatus: z.enum(['active', 'pending', 'rejected', 'disabled']).optional(),
    authToken: z.string().optional(),
    refreshToken: z.string().optional(),
  }),
});
export type LoginResponse = z.infer<typeof loginResponseSchema>;

export const refreshBodySchema = z.strictObject({ refreshToken: z.string().max(200).optional() }).nullish();
export const tokenPairSchema = z.object({
  message: z.string(),
  authToken: z.string(),
  refreshToken: z.string(),
});
export const messageSchema = z.object({ message: z.string() });

/** What the sign-in screens need to know before a user exists. */
export const publicConfigSchema = z.object({
  captcha: z.discriminatedUnion('provider', [
    z.object({ provider: z.literal('altcha'), challengeUrl: z.string() }),
    z.object({ provider: z.literal('recaptcha'), siteKey: z.string() }),
  ]),
  googleClientId: z.string().nullable(),
  /** Where the terms and conditions are published (TERMS_URL), or null where none is set. */
  termsUrl: z.string().nullable(),
  defaultMaxStorageGB: z.number(),
  /** The inactivity timer: sign-out after idleMinutes, warning warningMinutes before. */
  session: z.object({ idleMinutes: z.number(), warningMinutes: z.number() }),
});
export type PublicConfig = z.infer<typeof publicConfigSchema>;

/** POST /api/auth/google: a Google Identity Services ID token. */
export const googleLoginBodySchema = z.strictObject({
  credential: z.string().min(1, 'Google credential is required').max(10_000),
});

/** POST /api/mfa/verify. The pending-login token comes from the cookie or `mfaToken`. */
export const mfaVerifyBodySchema = z.strictObject({
  mfaSecret: z.string().trim().min(1, 'Code is required').max(64),
  email: z.string().trim().min(1).max(254),
  userId: z.string().min(1).max(100),
  mfaToken: z.string().max(200).optional(),
});
export type MfaVerifyBody = z.infer<typeof mfaVerifyBodySchema>;

export const mfaVerifyResponseSchema = z.object({
  message: z.string(),
  authToken: z.string(),
  refreshToken: z.string(),
  user: userSchema,
});
export type MfaVerifyResponse = z.infer<typeof mfaVerifyResponseSchema>;

/** POST /api/mfa/resend. */
export const mfaResendBodySchema = z.strictObject({
  email: z.string().trim().min(1).max(254),
  mfaToken: z.string().max(200).optional(),
});
export type MfaResendBody = z.infer<typeof mfaResendBodySchema>;

export const totpSetupResponseSchema = z.object({
  secret: z.string(),
  otpauthUrl: z.string(),
  qrCodeDataUrl: z.string(),
});
export type TotpSetupResponse = z.infer<typeof totpSetupResponseSchema>;

export const totpConfirmBodySchema = z.strictObject({
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, 'Enter the 6-digit code from your authenticator app'),
});
export const totpConfirmResponseSchema = z.object({
  message: z.string(),
  /** Shown once; each works once in place of an authenticator code. */
  recoveryCodes: z.array(z.string()),
  user: userSchema,
});
export type TotpConfirmResponse = z.infer<typeof totpConfirmResponseSchema>;

/** Bodies of the forgot/reset password calls. */
export const forgotPasswordBodySchema = z.strictObject({ email: emailSchema });
export const verifyResetTokenBodySchema = z.strictObject({
  email: z.string().trim().min(1).max(254),
  challenge: z.string().min(1).max(200),
});
export const verifyResetTokenResponseSchema = z.object({ isValid: z.boolean() });
export const resetPasswordBodySchema = z.strictObject({
  newPassword: resetPasswordSchema,
  challenge: z.string().min(1).max(200),
  email: z.string().trim().min(1).max(254),
});
export type ResetPasswordBody = z.infer<typeof resetPasswordBodySchema>;

/** Email ownership: the link's token. */
export const verifyEmailBodySchema = z.strictObject({ token: z.string().min(1).max(200) });

/** One of the signed-in user's active sessions (Settings). */
export const sessionInfoSchema = z.object({
  id: z.string(),
  /** e.g. 'Chrome on Linux', from the user agent. */
  device: z.string(),
  ip: z.string().nullable(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  current: z.boolean(),
});
export type SessionInfo = z.infer<typeof sessionInfoSchema>;
export const sessionListSchema = z.object({ data: z.array(sessionInfoSchema) });

/** PUT /api/users/{id}: only these profile and preference fields, each optional. */
export const updateUserBodySchema = z.strictObject({
  shareMedicalData: z.boolean().optional(),
  mfaEnabled: z.boolean().optional(),
  mfaMethod: z.enum(['email', 'totp'], { error: 'Please select a method to verify your login' }).optional(),
  emailNotifications: z.boolean().optional(),
  name: z.string().trim().min(1, 'Name is required').max(200).optional(),
  dateOfBirth: z.iso.date({ error: 'Date of birth must be a date (YYYY-MM-DD)' }).optional(),
  mobilePhone: z.string().trim().min(1, 'Phone is required').max(40).optional(),
  welcomeModalShown: z.boolean().optional(),
});
export type UpdateUserBody = z.infer<typeof updateUserBodySchema>;

/**
 * Security settings (turning two-factor off, changing its method, the authenticator and its recovery
 * codes, the password, the email, signing out other devices) need a proof of identity from the last
 * few minutes: the sign-in itself, or POST /api/auth/reauthenticate. An older one gets 403
 * REAUTH_REQUIRED and the app asks for the password, a second-factor code or Google.
 */
export const SECURITY_REAUTH_WINDOW_MINUTES = 5;
export const reauthenticateBodySchema = z.union([
  z.strictObject({ password: z.string().min(1, 'Password is required').max(256) }),
  z.strictObject({ code: z.string().trim().min(1, 'Code is required').max(50) }),
  z.strictObject({ googleCredential: z.string().min(1).max(4096) }),
]);
export type ReauthenticateBody = z.infer<typeof reauthenticateBodySchema>;
export const reauthenticateResponseSchema = z.object({
  message: z.string(),
  /** Until when security settings may be changed without another proof. */
  validUntil: z.string(),
});
export type ReauthenticateResponse = z.infer<typeof reauthenticateResponseSchema>;

/** POST /api/auth/password: the current password proves it is you (or a recent proof, for Google-only accounts). */
export const changePasswordBodySchema = z.strictObject({
  currentPassword: z.string().min(1, 'Current password is required').max(256).optional(),
  newPassword: resetPasswordSchema,
});
export type ChangePasswordBody = z.infer<typeof changePasswordBodySchema>;

/** POST /api/auth/email: a confirmation link goes to the new address; the change happens when it is opened. */
export const changeEmailBodySchema = z.strictObject({ newEmail: emailSchema });
export type ChangeEmailBody = z.infer<typeof changeEmailBodySchema>;
