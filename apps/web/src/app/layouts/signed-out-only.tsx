import { Navigate, Outlet, useLocation } from 'react-router';
import { useMe } from '@/features/auth/api/get-me';
import { postSignInTarget } from '@/features/auth/utils/post-sign-in-target';

/** Login, registration and recovery pages: a signed-in user is sent on (mode target, else '/'). */
export function SignedOutOnly() {
  const { data: user } = useMe();
  const location = useLocation();
  if (user) return <Navigate to={postSignInTarget(location.search)} replace />;
  return <Outlet />;
}
