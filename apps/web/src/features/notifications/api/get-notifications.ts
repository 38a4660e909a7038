import type { Notification } from '@mi/contracts/studies';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

export const NOTIFICATIONS_QUERY_KEY = ['/api/notifications/'] as const;

export interface NotificationList {
  data: Notification[];
  unreadCount: number;
}

/** GET /api/notifications/: the signed-in user's notifications, newest first. */
export function getNotifications(signal?: AbortSignal): Promise<NotificationList> {
  return api.get<NotificationList>('/api/notifications/', { signal });
}

export function notificationsQueryOptions() {
  return queryOptions({
    queryKey: NOTIFICATIONS_QUERY_KEY,
    queryFn: ({ signal }) => getNotifications(signal),
  });
}

/** Read again whenever a view showing notifications appears, so news from finished jobs shows up. */
export function useNotifications() {
  return useQuery({ ...notificationsQueryOptions(), refetchOnMount: 'always' });
}
