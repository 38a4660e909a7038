import type { AdminRating } from '@mi/contracts/directory';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useAdminMutation } from '../../shared/api/admin-mutation';

/** GET /api/admin/ratings: every rating patients gave, newest first, hidden comments included. */
export function useAdminRatings() {
  return useQuery({
    queryKey: queryKeys.admin.ratings,
    queryFn: ({ signal }) => api.get<AdminRating[]>('/api/admin/ratings', { signal }),
  });
}

/** PUT /api/admin/ratings/{orderId}/comment: hide a comment from patients, or show it again. */
export function useHideRatingComment() {
  return useAdminMutation(
    ({ orderId, hidden }: { orderId: string; hidden: boolean }) =>
      api.put<AdminRating>(`/api/admin/ratings/${encodeURIComponent(orderId)}/comment`, { hidden }),
    // Provider Details lists the comments (under the directory's key).
    [queryKeys.admin.ratings, queryKeys.providers],
  );
}
