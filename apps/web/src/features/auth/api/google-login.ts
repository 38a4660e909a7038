import type { LoginResponse } from '@mi/contracts/auth';
import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** POST /api/auth/google with the ID token Google Identity Services handed us. */
export function googleLogin(credential: string): Promise<LoginResponse> {
  return api.post<LoginResponse>('/api/auth/google', { credential });
}

export function useGoogleLogin() {
  return useMutation({ mutationFn: googleLogin });
}
