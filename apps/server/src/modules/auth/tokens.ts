import { createHash, randomBytes } from 'node:crypto';

/** Opaque session tokens: 256 random bits for the client, their SHA-256 for the database. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
