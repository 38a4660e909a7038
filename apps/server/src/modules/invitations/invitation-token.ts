import { createHmac, timingSafeEqual } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Invitation tokens: `{invitationId}.{hmac}`, the HMAC-SHA256 of the id under a key derived from
 * SESSION_SECRET. Nothing secret is stored, so the Share & Embed page can show the same link again;
 * whether the invitation is still live (expiry, revocation) is read from its row.
 */
export function createInvitationTokens(sessionSecret: string) {
  const key = createHmac('sha256', sessionSecret).update('invitation-token').digest();
  const mac = (id: string) => createHmac('sha256', key).update(id).digest('base64url');
  return {
    sign(invitationId: string): string {
      return `${invitationId}.${mac(invitationId)}`;
    },
    /** The invitation id a token names when its signature holds; null otherwise. */
    verify(token: string | null | undefined): string | null {
      if (!token || token.length > 200) return null;
      const dot = token.indexOf('.');
      const id = token.slice(0, dot).toLowerCase();
      if (dot < 0 || !UUID.test(id)) return null;
      const given = Buffer.from(token.slice(dot + 1));
      const expected = Buffer.from(mac(id));
      return given.length === expected.length && timingSafeEqual(given, expected) ? id : null;
    },
  };
}
export type InvitationTokens = ReturnType<typeof createInvitationTokens>;
