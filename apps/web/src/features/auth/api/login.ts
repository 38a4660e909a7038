import type { LoginBody, LoginResponse } from '@mi/contracts/auth';
import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** POST /api/auth/login. The server sets the session cookies; the SPA ignores the tokens in the body. */
export function login(body: LoginBody): Promise<LoginResponse> {
  return api.post<LoginResponse>('/api/auth/login', body);
}

export function useLogin() {
  return useMutation({ mutationFn: login });
}
