import type { notificationListSchema } from '@mi/contracts/studies';
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

export type NotificationList = z.infer<typeof notificationListSchema>;

/** GET /api/notifications/: the signed-in user's notifications, newest first. */
export function getNotifications(signal?: AbortSignal): Promise<NotificationList> {
  return api.get<NotificationList>('/api/notifications/', { signal });
}

export function notificationsQueryOptions() {
  return queryOptions({
    queryKey: queryKeys.notifications,
    queryFn: ({ signal }) => getNotifications(signal),
  });
}

/** Read again whenever a view showing notifications appears, so news from finished jobs shows up. */
export function useNotifications() {
  return useQuery({ ...notificationsQueryOptions(), refetchOnMount: 'always' });
}
