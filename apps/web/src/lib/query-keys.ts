/**
 * Every TanStack Query key of the SPA. A key spells the URL it reads (the default read, see
 * query-client.ts): ['/api/studies/user', id] is GET /api/studies/user/{id}. An `all` key is the
 * prefix of its group, so invalidating it refreshes every entry (every user's studies list, say).
 */
export const queryKeys = {
  /** The signed-in user, or null when signed out. */
  me: ['/api/auth/me'],
  /** What the sign-in screens need before a user exists. */
  publicConfig: ['/api/config'],
  sessions: ['/api/auth/sessions'],
  /** The emailed confirmation link: its single-use token is sent once. */
  verifyEmail: (token: string) => ['/api/auth/verify-email', { token }] as const,
  /** The emailed reset link, checked once per link. */
  verifyResetToken: (email: string, challenge: string) =>
    ['/api/auth/verifyResetToken', { email, challenge }] as const,
  notifications: ['/api/notifications/'],
  userStudies: {
    all: ['/api/studies/user'],
    byUser: (userId: string) => ['/api/studies/user', userId] as const,
  },
  study: (studyId: string) => ['/api/studies/study', studyId] as const,
  pendingJobs: {
    all: ['/api/jobs/pending'],
    byUser: (userId: string) => ['/api/jobs/pending', userId] as const,
  },
  /** Study shares: a study's current shares, those of a provider, and the studies shared with a user. */
  shares: {
    byStudy: (studyId: string) => ['/api/users/shares/study', studyId] as const,
    byProviderAll: ['/api/users/shares/provider'],
    sharedWithUser: (userId: string) => ['/api/users/shares/targetUser', userId] as const,
  },
  /** The user's providers (their trusted network): the body of GET /api/users/providers, {data}. */
  userProviders: ['/api/users/providers'],
  /** The provider directory: the body of GET /api/providers, {data}. */
  providers: ['/api/providers'],
  /** What the user shared with one provider (body {data}); shares.byProviderAll is its prefix. */
  providerShares: (providerId: string) => ['/api/users/shares/provider', providerId] as const,
  /** Who can open a study and what they did (owner only). */
  studyAccess: (studyId: string) => ['/api/studies', studyId, 'access'] as const,
  /** The signed-in user's invite link (Share & Embed). */
  inviteLink: ['/api/invitations/link'],
  /** What an invitation token allows (the /uploadOnly page of an invite link). */
  invitationCheck: (token: string) => ['/api/invitations/check', { token }] as const,
  admin: {
    outbox: ['/api/admin/outbox'],
    failedJobs: ['/api/admin/jobs/failed'],
    /** Every directory provider, retired ones included. */
    providers: ['/api/admin/providers'],
    professionals: {
      all: ['/api/admin/professionals'],
      byStatus: (status: string) => ['/api/admin/professionals', { status }] as const,
    },
  },
} as const;
