import { lazy } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { useMe } from '@/features/auth/api/get-me';
import { AccountStatus } from '@/features/auth/components/account-status';
import { modeRedirect } from '@/features/auth/utils/post-sign-in-target';
import { NotFoundCard } from '../routes/not-found';

const LoginRoute = lazy(() => import('../routes/login'));
// Seen once per installation at most (the first admin's first sign-in): not in the first load.
const PasswordChangeRequired = lazy(() =>
  import('./password-change-required').then((m) => ({ default: m.PasswordChangeRequired })),
);

/**
 * Signed-in area. A signed-out visitor sees the login page at the same URL, so a deep link opens
 * once they sign in. A link carrying a `mode` is forwarded to its target (see
 * features/auth/utils/post-sign-in-target.ts).
 */
export function RequireAuth() {
  const { data: user } = useMe();
  const location = useLocation();
  if (!user) return <LoginRoute />;
  // A professional waiting for (or refused) verification sees only that status.
  if (user.accountStatus !== 'active') return <AccountStatus user={user} />;
  // Signed in with a one-time password: nothing else until a new one is chosen.
  if (user.passwordChangeRequired) return <PasswordChangeRequired user={user} />;
  const target = modeRedirect(location.search);
  if (target) return <Navigate to={target} replace />;
  return <Outlet />;
}

/** Admin pages; anyone else sees the ordinary 404 card, so the area is not advertised. */
export function RequireAdmin() {
  const { data: user } = useMe();
  if (user?.role !== 'admin') return <NotFoundCard />;
  return <Outlet />;
}
