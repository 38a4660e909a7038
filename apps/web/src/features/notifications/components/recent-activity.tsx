import type { Notification } from '@mi/contracts/studies';
import { useQueryClient } from '@tanstack/react-query';
import { Bell, Check, FlaskConical, Info, MessageSquare, type LucideIcon } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { toast } from '@/hooks/use-toast';
import { paths } from '@/config/paths';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { queryKeys } from '@/lib/query-keys';
import { cn } from '@/lib/utils';
import { useNotifications } from '../api/get-notifications';
import { useMarkNotificationRead } from '../api/mark-notification-read';

/** A read notification slides away for 300 ms before the list refreshes. */
export const NOTIFICATION_REMOVAL_DELAY_MS = 300;

const ICONS: Record<Notification['type'], LucideIcon> = {
  analysis: FlaskConical,
  message: MessageSquare,
  system: Info,
};

function NotificationCard({
  notification,
  leaving,
  pending,
  onMarkRead,
}: {
  notification: Notification;
  leaving: boolean;
  pending: boolean;
  onMarkRead: () => void;
}) {
  const Icon = ICONS[notification.type] ?? Bell;
  return (
    <li
      className={cn(
        'flex gap-3 rounded-md border bg-card p-3 transition-all duration-300 ease-in',
        leaving && 'translate-x-full opacity-0',
      )}
    >
      <span className="mt-0.5 flex size-8 shrink-0 items-center justify-center rounded-full bg-accent text-accent-foreground">
        <Icon className="size-4" aria-hidden="true" />
      </span>
      <div className="min-w-0 flex-1">
        <p className="break-words text-sm font-medium">{notification.title}</p>
        <p className="break-words text-sm text-muted-foreground">{notification.description}</p>
        <p className="mt-1 text-xs text-muted-foreground">{formatDateTime(notification.createdAt)}</p>
      </div>
      <Button
        variant="ghost"
        size="icon"
        className="size-8 shrink-0"
        aria-label={`Mark as read: ${notification.title}`}
        disabled={pending || leaving}
        onClick={onMarkRead}
      >
        <Check aria-hidden="true" />
      </Button>
    </li>
  );
}

/** The Dashboard's 'Recent Activity' panel: unread notifications, each can be marked read. */
export function RecentActivity({ compact = false }: { compact?: boolean }) {
  const queryClient = useQueryClient();
  const notifications = useNotifications();
  const markRead = useMarkNotificationRead();
  const [leaving, setLeaving] = useState<Set<string>>(new Set());
  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);
  useEffect(() => () => timers.current.forEach(clearTimeout), []);

  const unread = notifications.data?.data.filter((n) => !n.read) ?? [];
  // The list holds at most the newest 100 unread; the server's count is all of them.
  const unreadCount = notifications.data?.unreadCount ?? 0;

  const onMarkRead = (id: string) =>
    markRead.mutate(id, {
      onSuccess: () => {
        toast({ title: 'Notification marked as read' });
        setLeaving((prev) => new Set(prev).add(id));
        timers.current.push(
          setTimeout(() => {
            void queryClient.invalidateQueries({ queryKey: queryKeys.notifications }).then(() =>
              setLeaving((prev) => {
                const next = new Set(prev);
                next.delete(id);
                return next;
              }),
            );
          }, NOTIFICATION_REMOVAL_DELAY_MS),
        );
      },
      onError: () =>
        toast({
          title: 'Error',
          description: 'Failed to mark notification as read. Please try again.',
          variant: 'destructive',
        }),
    });

  return (
    <Card className="flex flex-col">
      <CardHeader className="flex-row items-center justify-between gap-2 space-y-0">
        <CardTitle>Recent Activity</CardTitle>
        <Badge variant="secondary" aria-label={`${unreadCount} unread notifications`}>
          {unreadCount}
        </Badge>
      </CardHeader>
      <CardContent
        className={cn('overflow-y-auto overflow-x-hidden', compact ? 'max-h-[400px]' : 'max-h-[600px]')}
      >
        {notifications.isPending ? (
          <div className="flex justify-center py-8">
            <Spinner label="Loading notifications" />
          </div>
        ) : notifications.isError ? (
          <p className="text-sm text-destructive">{errorMessage(notifications.error)}</p>
        ) : unread.length === 0 ? (
          <p className="py-6 text-center text-sm text-muted-foreground">No unread notifications</p>
        ) : (
          <ul aria-label="Notifications" className="grid gap-2">
            {unread.map((n) => (
              <NotificationCard
                key={n._id}
                notification={n}
                leaving={leaving.has(n._id)}
                pending={markRead.isPending && markRead.variables === n._id}
                onMarkRead={() => onMarkRead(n._id)}
              />
            ))}
          </ul>
        )}
      </CardContent>
      <div className="border-t px-6 py-3 text-right text-sm">
        <Link to={paths.notifications} className="font-medium text-primary hover:underline">
          See all notifications
        </Link>
      </div>
    </Card>
  );
}
