// modules/notifications: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { createNotificationsRepository } from './notifications.repository';
export { notificationsRoutes } from './notifications.routes';
export {
  createNotificationsService,
  type NotificationEvent,
  type NotificationsService,
  wantsNotificationEmail,
} from './notifications.service';
export { createNotificationsModule } from './notifications.module';
