import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useReauth } from '../components/reauth-provider';

/**
 * An admin change: run once the admin's sign-in is recent enough (asking for it again if not); then,
 * whether it worked or not, the queries under `invalidates` (what it may have altered) are refetched.
 */
export function useAdminMutation<Variables, Answer>(
  run: (variables: Variables) => Promise<Answer>,
  invalidates: readonly QueryKey[],
) {
  const queryClient = useQueryClient();
  const withReauth = useReauth();
  return useMutation({
    mutationFn: (variables: Variables) => withReauth(() => run(variables)),
    onSettled: () => Promise.all(invalidates.map((queryKey) => queryClient.invalidateQueries({ queryKey }))),
  });
}
