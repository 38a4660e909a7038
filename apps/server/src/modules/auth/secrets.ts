import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  randomBytes,
  randomInt,
  timingSafeEqual,
} from 'node:crypto';

/**
 * AES-256-GCM sealing of short secrets the server must read back (`v1.<iv>.<tag>.<data>`, a fresh
 * IV each time). `key` is 32 bytes, derived from SESSION_SECRET by its user.
 */
export function createSealer(key: Buffer) {
  return {
    encrypt(plain: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        data.toString('base64url'),
      ].join('.');
    },
    decrypt(sealed: string): string {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || !data) throw new Error('unreadable sealed value');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}

/**
 * Keys derived from SESSION_SECRET for what the database must not hold in the clear: a keyed
 * hash for short codes (a six-digit code's plain SHA-256 is reversed by trying a million values)
 * and an AES-256-GCM key for authenticator secrets, which the server has to read back.
 */
export function createSecrets(sessionSecret: string) {
  const derive = (label: string) => createHmac('sha256', sessionSecret).update(label).digest();
  const codeKey = derive('mfa-code-hash');
  const encKey = derive('totp-secret-encryption');
  return {
    /** Keyed hash of a short code, bound to its context (challenge or user id). */
    hashCode(context: string, code: string): string {
      return createHmac('sha256', codeKey).update(`${context}:${code}`).digest('hex');
    },
    sameHash(a: string, b: string): boolean {
      const x = Buffer.from(a, 'hex');
      const y = Buffer.from(b, 'hex');
      return x.length === y.length && timingSafeEqual(x, y);
    },
    ...createSealer(encKey),
  };
}
export type Secrets = ReturnType<typeof createSecrets>;

/** Six random digits, leading zeros kept. */
export function newSixDigitCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** A recovery code like 'k3v9-x2qa' (40 bits), easy to type. */
export function newRecoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  let out = '';
  for (let i = 0; i < 8; i++) out += alphabet[randomInt(0, alphabet.length)];
  return `${out.slice(0, 4)}-${out.slice(4)}`;
}

export function normalizeRecoveryCode(input: string): string {
  return input.trim().toLowerCase().replace(/[\s-]/g, '');
}
