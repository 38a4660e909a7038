import type { ProfessionalApplication } from '@mi/contracts/admin';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useReauth } from '../../shared/components/reauth-provider';

type Decision = { id: string; decision: 'approve' } | { id: string; decision: 'reject'; reason: string };

/** POST /api/admin/professionals/{id}/approve | /reject {reason}: the applicant is emailed either way. */
export function reviewProfessional(
  input: Decision,
): Promise<{ message: string; data: ProfessionalApplication }> {
  const url = `/api/admin/professionals/${encodeURIComponent(input.id)}/${input.decision}`;
  return api.post(url, input.decision === 'reject' ? { reason: input.reason } : undefined);
}

export function useReviewProfessional() {
  const queryClient = useQueryClient();
  const withReauth = useReauth();
  return useMutation({
    // A decision is an admin change: a stale sign-in asks to sign in again first.
    mutationFn: (input: Decision) => withReauth(() => reviewProfessional(input)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.admin.professionals.all }),
  });
}
