import type { NotificationPage } from '@mi/contracts/notifications';
import { NOTIFICATIONS_PAGE_SIZE } from '@mi/contracts/notifications';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/notifications/all: every notification, read and unread, newest first. */
export function getNotificationPage(page: number, signal?: AbortSignal): Promise<NotificationPage> {
  return api.get<NotificationPage>('/api/notifications/all', {
    signal,
    params: { page, limit: NOTIFICATIONS_PAGE_SIZE },
  });
}

export function useNotificationPage(page: number) {
  return useQuery({
    queryKey: queryKeys.notificationsPage(page),
    queryFn: ({ signal }) => getNotificationPage(page, signal),
    placeholderData: keepPreviousData,
    refetchOnMount: 'always',
  });
}

/** PUT /api/notifications/read-all; Recent Activity and the unread badge refresh too. */
export function useMarkAllRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.put<{ message: string; data: { updated: number } }>('/api/notifications/read-all'),
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.notifications });
      await queryClient.invalidateQueries({ queryKey: ['/api/notifications/all'] });
    },
  });
}

/** PUT /api/notifications/{id}/read, from the notifications page. */
export function useMarkOneRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.put(`/api/notifications/${encodeURIComponent(id)}/read`),
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.notifications });
      await queryClient.invalidateQueries({ queryKey: ['/api/notifications/all'] });
    },
  });
}
