import type { AdminRating } from '@mi/contracts/directory';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useReauth } from '../../shared/components/reauth-provider';

/** GET /api/admin/ratings: every rating patients gave, newest first, hidden comments included. */
export function useAdminRatings() {
  return useQuery({
    queryKey: queryKeys.admin.ratings,
    queryFn: ({ signal }) => api.get<AdminRating[]>('/api/admin/ratings', { signal }),
  });
}

/** PUT /api/admin/ratings/{orderId}/comment: hide a comment from patients, or show it again. */
export function useHideRatingComment() {
  const queryClient = useQueryClient();
  const withReauth = useReauth();
  return useMutation({
    mutationFn: ({ orderId, hidden }: { orderId: string; hidden: boolean }) =>
      withReauth(() =>
        api.put<AdminRating>(`/api/admin/ratings/${encodeURIComponent(orderId)}/comment`, { hidden }),
      ),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.admin.ratings }),
        // Provider Details lists the comments (under the directory's key).
        queryClient.invalidateQueries({ queryKey: queryKeys.providers }),
      ]),
  });
}
