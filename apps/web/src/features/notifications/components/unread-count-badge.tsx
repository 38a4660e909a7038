import { useNotifications } from '../api/get-notifications';

/** Unread notifications count next to the user menu's Notifications item. */
export function UnreadCountBadge() {
  const { data } = useNotifications();
  const count = data?.unreadCount ?? 0;
  if (count <= 0) return null;
  return (
    <span
      className="ml-auto rounded-full bg-primary px-2 py-0.5 text-xs font-semibold tabular-nums text-primary-foreground"
      aria-label={`${count} unread`}
    >
      {count}
    </span>
  );
}
