// modules/invitations: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { createInvitationTokens } from './invitation-token';
export { createInvitationsRepository } from './invitations.repository';
export { invitationsRoutes } from './invitations.routes';
export { createInvitationsService, type InvitationsService } from './invitations.service';
export { createInvitationsModule } from './invitations.module';
