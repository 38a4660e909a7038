import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { CompactEncrypt } from 'jose';

/**
 * The cryptography of SMART Health Links (SMART Health Cards and Links IG 1.0.0, "SMART Health
 * Links"): the link's key and manifest id, its `shlink:/` payload, and its files as JWE. See
 * docs/links.md.
 */

/** Prefix of a link's bearer credential (DICOMweb, /fhir/R4), so the routes know which kind it is. */
export const LINK_TOKEN_PREFIX = 'shl_';

/** 32 random bytes, base64url: 43 characters (the link's key; its manifest id). */
export const random256 = () => randomBytes(32).toString('base64url');

export const newLinkToken = () => `${LINK_TOKEN_PREFIX}${random256()}`;

/** Compares two secrets in constant time (by their digests, so lengths do not show either). */
export function sameText(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

export const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');

/** What a link's `shlink:/` carries (IG: SHLink payload). */
export interface ShlPayload {
  url: string;
  key: string;
  /** Seconds since the epoch. */
  exp: number;
  /** 'P' (passcode), 'U' (direct file, check-in), or absent. */
  flag?: string;
  label?: string;
  v: 1;
}

/** `shlink:/` and the minified payload, base64url-encoded. */
export function shlinkOf(payload: ShlPayload): string {
  // Fixed key order and no undefined members: the same link always reads the same.
  const minified = JSON.stringify({
    url: payload.url,
    key: payload.key,
    exp: payload.exp,
    ...(payload.flag ? { flag: payload.flag } : {}),
    ...(payload.label ? { label: payload.label } : {}),
    v: payload.v,
  });
  return `shlink:/${Buffer.from(minified, 'utf8').toString('base64url')}`;
}

/**
 * A file as the IG requires: JWE compact serialisation, `alg: dir`, `enc: A256GCM`, `cty` the
 * file's content type, compressed with raw DEFLATE (`zip: DEF`: jose compresses the plaintext
 * itself when the header says so, and its compactDecrypt inflates it); jose draws a fresh 96-bit IV
 * for every encryption.
 */
export async function encryptFile(key: string, contentType: string, content: string): Promise<string> {
  return new CompactEncrypt(Buffer.from(content, 'utf8'))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', cty: contentType, zip: 'DEF' })
    .encrypt(Buffer.from(key, 'base64url'));
}
