import type { ReauthenticateBody, ReauthenticateResponse } from '@mi/contracts/auth';
import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** POST /api/auth/reauthenticate: the password, a code or Google; security settings may then change. */
export function reauthenticate(body: ReauthenticateBody): Promise<ReauthenticateResponse> {
  return api.post<ReauthenticateResponse>('/api/auth/reauthenticate', body);
}

export function useReauthenticate() {
  return useMutation({ mutationFn: reauthenticate });
}

/** POST /api/auth/reauthenticate/code: emails a code (accounts with two-factor sign-in by email). */
export function sendReauthCode(): Promise<{ message: string }> {
  return api.post<{ message: string }>('/api/auth/reauthenticate/code');
}

export function useSendReauthCode() {
  return useMutation({ mutationFn: sendReauthCode });
}
