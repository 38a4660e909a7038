import type { Config } from '../../config';
import { createNotificationsRepository } from './notifications.repository';
import { notificationsRoutes } from './notifications.routes';
import { createNotificationsService } from './notifications.service';

type ServiceDeps = Parameters<typeof createNotificationsService>[0];

export interface NotificationsModuleDeps extends Pick<ServiceDeps, 'users' | 'mail'> {
  db: Parameters<typeof createNotificationsRepository>[0];
  config: Pick<Config, 'publicUrl'>;
}

/** In-app notifications (and their emails). */
export function createNotificationsModule({ db, config, ...deps }: NotificationsModuleDeps) {
  const notifications = createNotificationsService({
    ...deps,
    repo: createNotificationsRepository(db),
    appUrl: config.publicUrl,
  });
  return { notifications, routes: () => [notificationsRoutes(notifications)] };
}
