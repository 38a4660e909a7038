import type { LoginResponse, RegisterBody } from '@mi/contracts/auth';
import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** POST /api/auth/register: 201 signs the new user in (cookies) and answers like login. */
export function register(body: RegisterBody): Promise<LoginResponse> {
  return api.post<LoginResponse>('/api/auth/register', body);
}

export function useRegister() {
  return useMutation({ mutationFn: register });
}
