import type { ProfessionalApplication } from '@mi/contracts/admin';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useAdminMutation } from '../../shared/api/admin-mutation';

type Decision = { id: string; decision: 'approve' } | { id: string; decision: 'reject'; reason: string };

/** POST /api/admin/professionals/{id}/approve | /reject {reason}: the applicant is emailed either way. */
export function reviewProfessional(
  input: Decision,
): Promise<{ message: string; data: ProfessionalApplication }> {
  const url = `/api/admin/professionals/${encodeURIComponent(input.id)}/${input.decision}`;
  return api.post(url, input.decision === 'reject' ? { reason: input.reason } : undefined);
}

export function useReviewProfessional() {
  return useAdminMutation(reviewProfessional, [queryKeys.admin.professionals.all]);
}
