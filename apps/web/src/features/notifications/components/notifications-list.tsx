import { NOTIFICATIONS_PAGE_SIZE } from '@mi/contracts/notifications';
import type { Notification } from '@mi/contracts/studies';
import {
  Bell,
  Check,
  CheckCheck,
  ChevronLeft,
  ChevronRight,
  FlaskConical,
  Info,
  MessageSquare,
} from 'lucide-react';
import { useState } from 'react';
import { EmptyState } from '@/components/empty-state';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { toast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { cn } from '@/lib/utils';
import { useMarkAllRead, useMarkOneRead, useNotificationPage } from '../api/notification-page';

const ICONS = { analysis: FlaskConical, message: MessageSquare, system: Info } as const;

const markFailed = () =>
  toast({
    title: 'Error',
    description: 'Failed to mark notification as read. Please try again.',
    variant: 'destructive',
  });

/** The notifications page: every notification, read and unread, newest first, with mark-all-read. */
export function NotificationsList() {
  const [page, setPage] = useState(1);
  const notes = useNotificationPage(page);
  const markAll = useMarkAllRead();
  const markOne = useMarkOneRead();
  const data = notes.data;
  const pages = Math.max(1, Math.ceil((data?.total ?? 0) / NOTIFICATIONS_PAGE_SIZE));

  return (
    <Card>
      <CardContent className="grid gap-4 pt-6">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <p className="text-sm text-muted-foreground" aria-live="polite">
            {data ? `${data.unreadCount} unread of ${data.total}` : ' '}
          </p>
          <Button
            variant="outline"
            size="sm"
            disabled={!data || data.unreadCount === 0 || markAll.isPending}
            onClick={() =>
              markAll.mutate(undefined, {
                onSuccess: (res) => toast({ title: res.message }),
                onError: markFailed,
              })
            }
          >
            <CheckCheck aria-hidden="true" /> Mark all as read
          </Button>
        </div>
        {notes.isPending ? (
          <div className="flex justify-center py-8">
            <Spinner label="Loading notifications" />
          </div>
        ) : notes.isError ? (
          <p role="alert" className="text-sm text-destructive">
            {errorMessage(notes.error)}
          </p>
        ) : data && data.data.length === 0 ? (
          <EmptyState icon={Bell} title="No notifications yet" />
        ) : (
          <ul aria-label="All notifications" className="grid gap-2">
            {data?.data.map((n) => (
              <NotificationRow
                key={n._id}
                n={n}
                pending={markOne.isPending && markOne.variables === n._id}
                onRead={() =>
                  markOne.mutate(n._id, {
                    onSuccess: () => toast({ title: 'Notification marked as read' }),
                    onError: markFailed,
                  })
                }
              />
            ))}
          </ul>
        )}
        {pages > 1 && (
          <nav aria-label="Notification pages" className="flex items-center justify-end gap-2 text-sm">
            <Button size="sm" variant="outline" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
              <ChevronLeft aria-hidden="true" /> Previous
            </Button>
            <span>
              Page {page} of {pages}
            </span>
            <Button
              size="sm"
              variant="outline"
              disabled={page >= pages}
              onClick={() => setPage((p) => p + 1)}
            >
              Next <ChevronRight aria-hidden="true" />
            </Button>
          </nav>
        )}
      </CardContent>
    </Card>
  );
}

function NotificationRow({ n, pending, onRead }: { n: Notification; pending: boolean; onRead: () => void }) {
  const Icon = ICONS[n.type] ?? Bell;
  return (
    <li className={cn('flex gap-3 rounded-md border p-3', n.read ? 'bg-background' : 'bg-card shadow-sm')}>
      <span className="mt-0.5 flex size-8 shrink-0 items-center justify-center rounded-full bg-accent text-accent-foreground">
        <Icon className="size-4" aria-hidden="true" />
      </span>
      <div className="min-w-0 flex-1">
        <p className={cn('break-words text-sm', !n.read && 'font-medium')}>
          {n.title} {!n.read && <Badge className="ml-1">New</Badge>}
        </p>
        <p className="break-words text-sm text-muted-foreground">{n.description}</p>
        <p className="mt-1 text-xs text-muted-foreground">{formatDateTime(n.createdAt)}</p>
      </div>
      {!n.read && (
        <Button
          variant="ghost"
          size="icon"
          className="size-8 shrink-0"
          aria-label={`Mark as read: ${n.title}`}
          disabled={pending}
          onClick={onRead}
        >
          <Check aria-hidden="true" />
        </Button>
      )}
    </li>
  );
}
