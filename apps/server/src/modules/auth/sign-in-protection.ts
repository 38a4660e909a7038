import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuditRecorder } from '../audit';
import type { MailService } from '../mail';
import { signInUnlockEmail } from '../mail';
import type { UserRow, UsersRepository } from '../accounts';
import type { EmailTokensRepository } from './email-tokens.repository';
import type { RequestMeta } from '../../http/request-meta';
import type { Throttle } from '../rate-limit';
import { hashToken } from './tokens';

/** Failed sign-ins counted per account (and per known device) over this window. */
export const LOGIN_WINDOW_MS = 15 * 60_000;
/** Failures per account (from unknown devices) before the account is locked for them. */
export const MAX_LOGIN_FAILURES_PER_ACCOUNT = 10;
/** How long a browser the owner signed in from stays known. */
export const KNOWN_DEVICE_TTL_MS = 180 * 24 * 3_600_000;
export const UNLOCK_TOKEN_TTL_MS = 60 * 60_000;
const PREFIX = 'kd1.';

interface Deps {
  throttle: Throttle;
  tokens: EmailTokensRepository;
  users: UsersRepository;
  mail: MailService;
  audit: AuditRecorder;
  sessionSecret: string;
  appUrl: string;
  now: () => Date;
  /** Tests: how a delay is waited out. */
  sleep?: (ms: number) => Promise<void>;
}

export const accountKey = (emailNormalized: string) => `login:account:${emailNormalized}`;
const deviceKey = (deviceId: string) => `login:device:${deviceId}`;
const unlockMailKey = (userId: string) => `login:unlock-mail:${userId}`;

/**
 * Keeps password guessing expensive without letting a stranger lock the owner out. Failures for an
 * email slow every further attempt down and raise the captcha's work for it; after ten, attempts
 * from unknown browsers are refused for 15 minutes. A browser the owner signed in from before is
 * "known" (a signed, httpOnly cookie) and counts its own failures instead, and the owner is emailed
 * a one-time link that makes the browser they open it in known.
 */
export function createSignInProtection(deps: Deps) {
  const key = createHmac('sha256', deps.sessionSecret).update('known-device/v1').digest();
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  /** The device id a known-device token carries for this user, or null. */
  function knownDevice(token: string | undefined, userId: string): string | null {
    if (!token?.startsWith(PREFIX)) return null;
    const [uid, deviceId, exp, signature, extra] = token.slice(PREFIX.length).split('.');
    if (!uid || !deviceId || !exp || !signature || extra !== undefined) return null;
    const expected = Buffer.from(sign(`${uid}.${deviceId}.${exp}`));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    if (uid !== userId || Number(exp) * 1000 <= deps.now().getTime()) return null;
    return deviceId;
  }

  return {
    /** A token that makes this browser known for the user (kept in the known-device cookie). */
    deviceToken(userId: string): string {
      const exp = Math.floor((deps.now().getTime() + KNOWN_DEVICE_TTL_MS) / 1000);
      const payload = `${userId}.${randomBytes(12).toString('base64url')}.${exp}`;
      return `${PREFIX}${payload}.${sign(payload)}`;
    },

    /** How hard the captcha is for a sign-in as this email: twice the work at 5 failures, four times at 10. */
    async captchaHardness(emailNormalized: string | undefined): Promise<number> {
      if (!emailNormalized) return 1;
      const failures = await deps.throttle.count(accountKey(emailNormalized), LOGIN_WINDOW_MS);
      return failures >= 10 ? 4 : failures >= 5 ? 2 : 1;
    },

    /**
     * Which counter a sign-in attempt for this email is judged by: the known device's own when the
     * browser is one of the user's, else the account's. `locked` when that counter is full.
     */
    async judge(
      emailNormalized: string,
      user: UserRow | undefined,
      deviceCookie: string | undefined,
    ): Promise<{ counter: string; locked: boolean }> {
      const deviceId = user ? knownDevice(deviceCookie, user.id) : null;
      const counter = deviceId ? deviceKey(deviceId) : accountKey(emailNormalized);
      const failures = await deps.throttle.count(counter, LOGIN_WINDOW_MS);
      return { counter, locked: failures >= MAX_LOGIN_FAILURES_PER_ACCOUNT };
    },

    /**
     * Records a failure, then waits longer the more there were (from the fourth on, up to 1 s), so
     * guessing slows down. The failure that locks an existing account emails its owner the unlock link.
     */
    async failed(counter: string, user: UserRow | undefined, meta: RequestMeta): Promise<void> {
      await deps.throttle.hit(counter);
      const failures = await deps.throttle.count(counter, LOGIN_WINDOW_MS);
      if (user && counter.startsWith('login:account:') && failures >= MAX_LOGIN_FAILURES_PER_ACCOUNT)
        await this.sendUnlockLink(user, meta);
      if (failures > 3) await sleep(Math.min(1_000, 100 * 2 ** (failures - 4)));
    },

    /** Forgets an account's failures after its owner signed in. */
    async succeeded(counter: string): Promise<void> {
      await deps.throttle.clear(counter);
    },

    /** Emails the one-time unlock link (at most once an hour per account). */
    async sendUnlockLink(user: UserRow, meta: RequestMeta): Promise<void> {
      if ((await deps.throttle.count(unlockMailKey(user.id), 3_600_000)) > 0) return;
      await deps.throttle.hit(unlockMailKey(user.id));
      const token = await deps.tokens.issue(user.id, 'sign_in_unlock', UNLOCK_TOKEN_TTL_MS, deps.now());
      const link = `${deps.appUrl}/api/auth/unlock?${new URLSearchParams({ token }).toString()}`;
      await deps.mail.send(user.email, signInUnlockEmail({ link, minutes: UNLOCK_TOKEN_TTL_MS / 60_000 }));
      await deps.audit({
        actorId: user.id,
        actorRole: user.role,
        action: 'auth.unlock.sent',
        outcome: 'success',
        targetType: 'user',
        targetId: user.id,
        requestId: meta.requestId,
        ip: meta.ip,
      });
    },

    /** Uses an unlock link once: the known-device token for the browser that opened it, or null. */
    async unlock(token: string, meta: RequestMeta): Promise<string | null> {
      const row = await deps.tokens.consume('sign_in_unlock', hashToken(token), deps.now());
      const user = row ? await deps.users.findById(row.userId) : undefined;
      await deps.audit({
        actorId: user?.id ?? null,
        actorRole: user?.role ?? null,
        action: 'auth.unlock',
        outcome: user ? 'success' : 'failure',
        targetType: 'user',
        targetId: user?.id ?? null,
        requestId: meta.requestId,
        ip: meta.ip,
      });
      return user ? this.deviceToken(user.id) : null;
    },
  };
}
export type SignInProtection = ReturnType<typeof createSignInProtection>;
