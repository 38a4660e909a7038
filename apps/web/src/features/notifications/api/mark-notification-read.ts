import type { Notification } from '@mi/contracts/studies';
import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** PUT /api/notifications/{id}/read. */
export function markNotificationRead(id: string): Promise<{ message: string; data: Notification }> {
  return api.put<{ message: string; data: Notification }>(
    `/api/notifications/${encodeURIComponent(id)}/read`,
  );
}

export function useMarkNotificationRead() {
  return useMutation({ mutationFn: markNotificationRead });
}
