import type { LoginResponse } from '@mi/contracts/auth';
import { useQueryClient } from '@tanstack/react-query';
import { useLocation, useNavigate } from 'react-router';
import { paths, withQuery } from '@/config/paths';
import { toast, toastError } from '@/hooks/use-toast';
import { meQueryOptions } from '../api/get-me';
import { linkShareFromSearch } from '../api/link-share';
import { carrySearch } from '../utils/post-sign-in-target';

/**
 * The end of a sign-in, shared by the password form and Google sign-in: with a second factor, show the
 * message and go to /mfa/verify with userId and email; otherwise read the user (the session
 * cookies are set) and toast. Returns false when the caller should let the user try again.
 */
export function useCompleteSignIn() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  return async (res: LoginResponse): Promise<boolean> => {
    if (res.data.mfaEnabled) {
      toast({ title: res.message });
      const params = new URLSearchParams(carrySearch(location.search));
      params.set('userId', res.data.id);
      params.set('email', res.data.email);
      if (res.data.mfaMethod === 'totp') params.set('method', 'totp');
      navigate(withQuery(paths.mfaVerify, params));
      return true;
    }
    if (!res.data.authToken) {
      toastError('Cannot login. Please try again.');
      return false;
    }
    // An emailed share's link is given to the account before the app switches to signed-in.
    await linkShareFromSearch(location.search, res.data.id);
    const user = await queryClient.fetchQuery({ ...meQueryOptions(), staleTime: 0 }).catch(() => null);
    if (!user) {
      toastError('Cannot login. Please try again.');
      return false;
    }
    toast({ title: 'Logged in Successfully' });
    return true;
  };
}
