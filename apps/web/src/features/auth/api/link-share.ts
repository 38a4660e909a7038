import { api } from '@/lib/api-client';

/**
 * An emailed share link carries `shareId` and `shareToken` through sign-in, registration and the
 * second factor; once signed in, PUT /api/users/shares/{shareId} {targetUser, token} gives that
 * share to the account. A failure is only logged: it never holds up the sign-in.
 */
export async function linkShareFromSearch(search: string, userId: string): Promise<void> {
  const params = new URLSearchParams(search);
  const shareId = params.get('shareId');
  if (!shareId) return;
  const token = params.get('shareToken');
  try {
    await api.put(`/api/users/shares/${encodeURIComponent(shareId)}`, {
      targetUser: userId,
      ...(token ? { token } : {}),
    });
  } catch (err) {
    console.warn('The shared study could not be linked to this account', err);
  }
}
