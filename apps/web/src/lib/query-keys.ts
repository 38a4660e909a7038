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
  /** The notifications page: every notification, a page at a time. */
  notificationsPage: (page: number) => ['/api/notifications/all', { page }] as const,
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
  /** A directory provider's ratings and their comments (Provider Details); `providers` is its prefix. */
  providerRatings: (providerId: string) => ['/api/providers', providerId, 'ratings'] as const,
  /** What the user shared with one provider (body {data}); shares.byProviderAll is its prefix. */
  providerShares: (providerId: string) => ['/api/users/shares/provider', providerId] as const,
  /** The user's study links (Links page) and one study's (Access & activity); `all` is the prefix. */
  studyLinks: {
    all: ['/api/studies/links'],
    byStudy: (studyId: string) => ['/api/studies/links', { studyId }] as const,
  },
  /** Who can open a study and what they did (owner only). */
  studyAccess: (studyId: string) => ['/api/studies', studyId, 'access'] as const,
  /** The signed-in user's invite link (Share & Embed). */
  inviteLink: ['/api/invitations/link'],
  /** What an invitation token allows (the /uploadOnly page of an invite link). */
  invitationCheck: (token: string) => ['/api/invitations/check', { token }] as const,
  /** The help centre: article pages (with their query), single articles, counts and categories. */
  kb: {
    all: ['/api/kb'],
    list: (params: { category?: string; featured?: boolean; page: number; limit: number; q?: string }) =>
      ['/api/kb', params] as const,
    article: (id: string) => ['/api/kb', id] as const,
    counts: ['/api/kb/counts'],
    categories: ['/api/kb/categories'],
  },
  /** The analysis service catalogue with each offer's price (a plain list). */
  services: ['/api/services'],
  /** A verified professional's own directory profile and offers (Directory Profile). */
  professionalProfile: ['/api/professional/profile'] as const,
  professionalOffers: ['/api/professional/offers'] as const,
  /** Orders sent to the professional's linked providers (My Orders). */
  professionalOrders: ['/api/professional/orders'] as const,
  /** The user's purchases (orders), newest first. */
  purchases: {
    all: ['/api/purchases/user'],
    byUser: (userId: string) => ['/api/purchases/user', userId] as const,
  },
  /** What an order waiting for data needs (Purchased Services' attach dialog). */
  orderDataNeed: (orderId: string) => ['/api/orders', orderId, 'data-need'] as const,
  /** Which card form the browser shows (sandbox or Stripe). */
  paymentConfig: ['/api/payments/config'],
  /** A study as the Analysis services page shows it. */
  analysisStudy: (studyId: string) => ['/api/studies', studyId] as const,
  admin: {
    /** Every help article, drafts included. */
    helpArticles: ['/api/admin/kb'],
    outbox: ['/api/admin/outbox'],
    failedJobs: ['/api/admin/jobs/failed'],
    users: {
      all: ['/api/admin/users'],
      list: (q: string, page: number) => ['/api/admin/users', { q, page }] as const,
    },
    audit: (filters: Record<string, string | undefined>, page: number) =>
      ['/api/admin/audit', { ...filters, page }] as const,
    health: ['/api/admin/health'],
    /** Every directory provider, retired ones included. */
    providers: ['/api/admin/providers'],
    /** Every rating patients gave, hidden comments included. */
    ratings: ['/api/admin/ratings'],
    /** Every analysis service and offer, retired ones included. */
    services: ['/api/admin/services'],
    professionals: {
      all: ['/api/admin/professionals'],
      byStatus: (status: string) => ['/api/admin/professionals', { status }] as const,
    },
  },
} as const;
