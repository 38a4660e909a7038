import { PageHeader } from '@/components/page-header';
import { NotificationsList } from '@/features/notifications/components/notifications-list';

/** /notifications: every notification, read and unread (Recent Activity shows the unread ones). */
export default function NotificationsRoute() {
  return (
    <>
      <PageHeader
        title="Notifications"
        description="Everything that happened in your account, newest first"
      />
      <NotificationsList />
    </>
  );
}
