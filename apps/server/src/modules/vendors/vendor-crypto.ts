import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { VENDOR_SIGNATURE_TOLERANCE_SECONDS } from '@mi/contracts/vendors';

/**
 * The cryptography of the vendor protocol (docs/decisions.md, "External AI vendors"): request
 * signatures, the signing secret sealed at rest, and the DICOMweb credential's tokens.
 */

/** Prefix of a vendor's DICOMweb token, so the DICOMweb routes know which credential it is. */
export const VENDOR_TOKEN_PREFIX = 'mivd_';
const SECRET_PREFIX = 'whsec_';

/** `v1=` and the hex HMAC-SHA256 of `${timestamp}.${body}` under the secret. */
export function signRequest(secret: string, timestamp: number, body: string | Buffer): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
  return `v1=${mac}`;
}

/**
 * Checks a signed request: `bad` when the signature does not verify (or a header is missing or
 * malformed), `stale` when it does but its timestamp is more than the tolerance from `nowSeconds`.
 */
export function verifyRequest(
  secret: string,
  timestampHeader: string | undefined,
  signatureHeader: string | undefined,
  body: Buffer,
  nowSeconds: number,
): 'ok' | 'bad' | 'stale' {
  if (!timestampHeader || !signatureHeader || !/^\d{1,12}$/.test(timestampHeader)) return 'bad';
  const expected = Buffer.from(signRequest(secret, Number(timestampHeader), body));
  // Several signatures may be sent while a secret is being rotated: `v1=…, v1=…`.
  const matches = signatureHeader
    .split(',')
    .map((s) => Buffer.from(s.trim()))
    .some((given) => given.length === expected.length && timingSafeEqual(given, expected));
  if (!matches) return 'bad';
  return Math.abs(nowSeconds - Number(timestampHeader)) > VENDOR_SIGNATURE_TOLERANCE_SECONDS ? 'stale' : 'ok';
}

/** A new signing secret, shown to the admin once. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** A new DICOMweb token; only its hash is stored. */
export function newCredentialToken(): string {
  return VENDOR_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * Seals signing secrets for the database with AES-256-GCM under a key derived from SESSION_SECRET:
 * we must read them back to sign, so they are not hashed, but a copy of the database alone does not
 * reveal them.
 */
export function createSecretSeal(sessionSecret: string) {
  const key = createHmac('sha256', sessionSecret).update('vendor-signing-secret-encryption').digest();
  return {
    seal(plain: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), data]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    unseal(sealed: string): string {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || !data) throw new Error('unreadable sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}
export type SecretSeal = ReturnType<typeof createSecretSeal>;
