/**
 * Every client route of the SPA. The web app's router declares its routes with these
 * (apps/web/src/config/paths.ts), and the server answers 200 with the app page only for them
 * (apps/server/src/http/app.ts): any other path is a 404.
 */
export const SPA_PATHS = {
  /** The dashboard when signed in, the login page otherwise. */
  home: '/',
  login: '/login',
  registerPatient: '/register/patient',
  registerMedical: '/register/medical',
  mfaVerify: '/mfa/verify',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  registrationPending: '/registration-pending',
  /** The emailed confirmation link's page, signed in or not. */
  verifyEmail: '/verify-email',
  help: '/help',
  helpArticle: '/help/:id',
  /** The upload page without the sidebar (where a ?mode=direct_upload link lands). */
  uploadOnly: '/uploadOnly',
  studyTransfer: '/studies/transfer/:studyId',
  upload: '/upload',
  studies: '/studies',
  /** Every study link (SMART Health Link) the user made: status, opens, pause, extend, revoke. */
  links: '/links',
  /**
   * A study link's page for whoever holds it, signed in or not: `/shl#shlink:/…`. The payload
   * (with the decryption key) stays in the fragment, so it never reaches the server.
   */
  shl: '/shl',
  share: '/share',
  servicesAvailable: '/services/available',
  servicesPurchased: '/services/purchased',
  analysisServices: '/analysis/services',
  providers: '/providers',
  billing: '/billing',
  settings: '/settings',
  /** Every notification, read and unread (linked from Recent Activity). */
  notifications: '/notifications',
  admin: '/admin',
  /** A professional's orders: accept, decline, write and deliver reports. */
  professionalOrders: '/professional/orders',
  /** A verified professional's directory profile and offers. */
  professionalProfile: '/professional/profile',
} as const;

const SPA_ROUTE_PATTERNS = Object.values(SPA_PATHS).map(
  (path) =>
    new RegExp(
      `^${path
        .split('/')
        .map((segment) =>
          segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('/')}/?$`,
      'i',
    ),
);

/** Whether a URL path (without its query) is one of the SPA's pages; a trailing slash is allowed. */
export function isSpaRoute(pathname: string): boolean {
  return SPA_ROUTE_PATTERNS.some((pattern) => pattern.test(pathname));
}
