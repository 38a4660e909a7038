import {
  CHECKIN_DEFAULT_MINUTES,
  CHECKIN_MAX_MINUTES,
  LINK_EXPIRY_PRESETS,
  LINK_LABEL_MAX,
  LINK_MAX_DAYS,
  LINK_PASSCODE_MAX,
  LINK_PASSCODE_MIN,
  PASSCODE_REQUIRED_AFTER_HOURS,
  linkModeSchema,
  type CreateLinkRequest,
  type LinkMode,
  type LinkStatus,
} from '@mi/contracts/links';
import { format, isValid } from 'date-fns';
import { z } from 'zod';

/**
 * The rules of a link's policy as the 'Share by link / QR' and 'Extend' dialogs apply them before
 * the server does (packages/contracts/src/links.ts holds the numbers): a check-in link is short, a
 * link that lives past a day needs a passcode, nothing lives past a year.
 */

/** The expiry select's value for a date and time of one's choosing. */
export const CUSTOM_EXPIRY = 'custom';

export const MAX_OPENS_LIMIT = 10_000;

const MINUTE = 60_000;

/** The expiry presets that fit a mode (a check-in link lives at most an hour), as select options. */
export function expiryChoices(mode: LinkMode): { value: string; label: string }[] {
  return LINK_EXPIRY_PRESETS.filter((p) => mode === 'share' || p.minutes <= CHECKIN_MAX_MINUTES).map((p) => ({
    value: String(p.minutes),
    label: p.label,
  }));
}

/** What the expiry select starts at: a day for a shared link (no passcode needed), 15 minutes at the desk. */
export const DEFAULT_EXPIRY: Record<LinkMode, string> = {
  share: String(24 * 60),
  checkin: String(CHECKIN_DEFAULT_MINUTES),
};

/** A date as a `datetime-local` input writes it (local time, minutes). */
export function toLocalInput(date: Date): string {
  return format(date, "yyyy-MM-dd'T'HH:mm");
}

/** When the link ends: a preset counted from `now`, or the custom local date and time; null when unreadable. */
export function expiryDate(expiry: string, customExpiry: string, now: Date): Date | null {
  if (expiry !== CUSTOM_EXPIRY) {
    const minutes = Number(expiry);
    return Number.isFinite(minutes) && minutes > 0 ? new Date(now.getTime() + minutes * MINUTE) : null;
  }
  if (!customExpiry) return null;
  // A datetime-local value has no offset, so it reads as the browser's local time.
  const date = new Date(customExpiry);
  return isValid(date) ? date : null;
}

/** Whether a link living until `expiresAt` needs a passcode. */
export function needsPasscode(mode: LinkMode, expiresAt: Date | null, now: Date): boolean {
  if (mode !== 'share' || !expiresAt) return false;
  return expiresAt.getTime() - now.getTime() > PASSCODE_REQUIRED_AFTER_HOURS * 60 * MINUTE;
}

/** Why a link may not end at `expiresAt` (null when it may). */
export function expiryProblem(mode: LinkMode, expiresAt: Date | null, now: Date): string | null {
  if (!expiresAt) return 'Choose the date and time the link ends.';
  const minutes = (expiresAt.getTime() - now.getTime()) / MINUTE;
  if (minutes <= 0) return 'Choose a time in the future.';
  if (mode === 'checkin' && minutes > CHECKIN_MAX_MINUTES)
    return `A check-in link lasts at most ${CHECKIN_MAX_MINUTES} minutes. Choose an earlier time.`;
  if (minutes > LINK_MAX_DAYS * 24 * 60) return `A link can last at most ${LINK_MAX_DAYS} days.`;
  return null;
}

export const PASSCODE_REQUIRED_MESSAGE = `A link that lasts more than ${PASSCODE_REQUIRED_AFTER_HOURS} hours needs a passcode. Add one, or choose a shorter time.`;

/** The create dialog's fields, as the form holds them (numbers as typed). */
export const linkFormSchema = z
  .object({
    mode: linkModeSchema,
    expiry: z.string(),
    customExpiry: z.string(),
    passcode: z.string(),
    allowDownload: z.boolean(),
    deidentified: z.boolean(),
    maxOpens: z.string(),
    label: z.string(),
  })
  .superRefine((v, ctx) => {
    const now = new Date();
    const expiresAt = expiryDate(v.expiry, v.customExpiry, now);
    const problem = expiryProblem(v.mode, expiresAt, now);
    if (problem)
      ctx.addIssue({
        code: 'custom',
        path: [v.expiry === CUSTOM_EXPIRY ? 'customExpiry' : 'expiry'],
        message: problem,
      });
    if (v.mode === 'share') {
      if (v.passcode === '' && needsPasscode(v.mode, expiresAt, now))
        ctx.addIssue({ code: 'custom', path: ['passcode'], message: PASSCODE_REQUIRED_MESSAGE });
      else if (v.passcode !== '' && v.passcode.length < LINK_PASSCODE_MIN)
        ctx.addIssue({
          code: 'custom',
          path: ['passcode'],
          message: `The passcode needs at least ${LINK_PASSCODE_MIN} characters.`,
        });
      else if (v.passcode.length > LINK_PASSCODE_MAX)
        ctx.addIssue({
          code: 'custom',
          path: ['passcode'],
          message: `The passcode can have at most ${LINK_PASSCODE_MAX} characters.`,
        });
    }
    const opens = v.maxOpens.trim();
    if (opens !== '' && !(/^\d+$/.test(opens) && Number(opens) >= 1 && Number(opens) <= MAX_OPENS_LIMIT))
      ctx.addIssue({
        code: 'custom',
        path: ['maxOpens'],
        message: `Enter a whole number from 1 to ${MAX_OPENS_LIMIT.toLocaleString('en-US')}, or leave it empty.`,
      });
    if (v.label.trim().length > LINK_LABEL_MAX)
      ctx.addIssue({
        code: 'custom',
        path: ['label'],
        message: `The label can have at most ${LINK_LABEL_MAX} characters.`,
      });
  });
export type LinkFormValues = z.infer<typeof linkFormSchema>;

export function defaultLinkForm(mode: LinkMode = 'share'): LinkFormValues {
  return {
    mode,
    expiry: DEFAULT_EXPIRY[mode],
    customExpiry: '',
    passcode: '',
    allowDownload: false,
    deidentified: false,
    maxOpens: '',
    label: '',
  };
}

/** The request for valid form values (the expiry counted from `now`). */
export function toCreateRequest(v: LinkFormValues, studyIds: string[], now: Date): CreateLinkRequest {
  const expiresAt = expiryDate(v.expiry, v.customExpiry, now);
  if (!expiresAt) throw new Error('toCreateRequest: the form has no valid expiry');
  const label = v.label.trim();
  const opens = v.maxOpens.trim();
  return {
    studyIds,
    mode: v.mode,
    expiresAt: expiresAt.toISOString(),
    // A check-in link is opened at the desk without a passcode (flag U links have none).
    ...(v.mode === 'share' && v.passcode ? { passcode: v.passcode } : {}),
    allowDownload: v.allowDownload,
    ...(v.deidentified ? { deidentified: true } : {}),
    ...(opens ? { maxOpens: Number(opens) } : {}),
    ...(label ? { label } : {}),
  };
}

export const LINK_STATUS_LABELS: Record<LinkStatus, string> = {
  active: 'Active',
  paused: 'Paused',
  expired: 'Expired',
  revoked: 'Revoked',
  disabled: 'Disabled: too many wrong passcodes',
  used_up: 'Used up',
};

export const LINK_MODE_LABELS: Record<LinkMode, string> = {
  share: 'Share link',
  checkin: 'Check-in link',
};

/** What the owner may still do with a link of a status. */
export function linkActions(status: LinkStatus): {
  pause: boolean;
  resume: boolean;
  extend: boolean;
  revoke: boolean;
} {
  return {
    pause: status === 'active',
    resume: status === 'paused',
    // An expired link comes back when given a later end; a revoked, disabled or used-up one does not.
    extend: status === 'active' || status === 'paused' || status === 'expired',
    revoke: status !== 'revoked',
  };
}
