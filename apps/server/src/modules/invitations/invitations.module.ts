import type { Config } from '../../config';
import { createInvitationTokens } from './invitation-token';
import { createInvitationsRepository } from './invitations.repository';
import { invitationsRoutes } from './invitations.routes';
import { createInvitationsService } from './invitations.service';

type ServiceDeps = Parameters<typeof createInvitationsService>[0];

export interface InvitationsModuleDeps extends Pick<
  ServiceDeps,
  'users' | 'mail' | 'audit' | 'throttle' | 'notifications' | 'now'
> {
  db: Parameters<typeof createInvitationsRepository>[0];
  config: Pick<Config, 'sessionSecret' | 'publicUrl' | 'defaultMaxStorageGB'>;
}

/** Invite links, invitation emails, shared uploads and provider referrals. */
export function createInvitationsModule({ db, config, ...deps }: InvitationsModuleDeps) {
  const invitations = createInvitationsService({
    repo: createInvitationsRepository(db),
    tokens: createInvitationTokens(config.sessionSecret),
    users: deps.users,
    mail: deps.mail,
    audit: deps.audit,
    throttle: deps.throttle,
    notifications: deps.notifications,
    appUrl: config.publicUrl,
    defaultMaxStorageGB: config.defaultMaxStorageGB,
    now: deps.now,
  });
  return { invitations, routes: () => [invitationsRoutes(invitations)] };
}
