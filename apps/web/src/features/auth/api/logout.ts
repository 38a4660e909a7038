import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { paths } from '@/config/paths';
import { toast, toastError } from '@/hooks/use-toast';
import { api, errorMessage, isApiError } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** POST /api/auth/logout: the server revokes the session and expires the httpOnly cookies. */
export function logout(): Promise<{ message: string }> {
  return api.post<{ message: string }>('/api/auth/logout');
}

/**
 * Logout: end the session, forget everything cached about the user, clear local and
 * session storage, toast, go to '/'. Cookies are httpOnly, so only the server can clear them.
 * `mutate({ reason: 'inactivity' })` is the inactivity timer's sign-out (toast 'Session Expired');
 * `mutate({ reason: 'manual' })` the user menu's Logout (toast 'Logged Out').
 */
export function useLogout() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: async (_options: void | { reason: 'inactivity' | 'manual' }) => {
      try {
        await logout();
      } catch (err) {
        // UNAUTHORIZED: the session had already ended on the server, which is what logging out wants.
        if (!isApiError(err, 'UNAUTHORIZED')) throw err;
      }
    },
    onSuccess: (_data, options) => {
      navigate(paths.home, { replace: true });
      queryClient.setQueryData(queryKeys.me, null);
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== queryKeys.me[0] });
      queryClient.getMutationCache().clear();
      try {
        localStorage.clear();
        sessionStorage.clear();
      } catch {
        // Storage can be unavailable (privacy mode); nothing was kept there then.
      }
      toast(
        options?.reason === 'inactivity'
          ? { title: 'Session Expired', description: 'You have been logged out due to inactivity.' }
          : options?.reason === 'manual'
            ? { title: 'Logged Out', description: 'You have been logged out successfully.' }
            : { title: 'Logged out successfully' },
      );
    },
    onError: (err) => toastError(errorMessage(err)),
  });
}
