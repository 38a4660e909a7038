import { RefreshCw } from 'lucide-react';
import { useLocation } from 'react-router';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { usePublicConfig } from '@/features/auth/api/get-public-config';
import { GoogleSignIn } from '@/features/auth/components/google-sign-in';
import { LoginForm } from '@/features/auth/components/login-form';
import { AuthLayout } from '@/components/layouts/auth-layout';

/** '/', '/login' and any signed-out path: the login page. */
export default function LoginRoute() {
  const config = usePublicConfig();
  // Set by the emailed unlock link (GET /api/auth/unlock), which redirects here.
  const unlocked = new URLSearchParams(useLocation().search).get('unlocked');
  return (
    <AuthLayout title="Sign in" description="Sign in to view, share and get your medical studies read.">
      <div className="grid gap-5">
        {config.isError && (
          <Alert variant="destructive" role="alert" className="items-center justify-between">
            <AlertDescription>Sign-in settings could not be loaded.</AlertDescription>
            <Button variant="outline" size="sm" onClick={() => config.refetch()} disabled={config.isFetching}>
              <RefreshCw aria-hidden="true" /> Retry
            </Button>
          </Alert>
        )}
        {unlocked === '1' && (
          <Alert role="status">
            <AlertDescription>
              This browser can now sign in to your account. Sign in with your password.
            </AlertDescription>
          </Alert>
        )}
        {unlocked === '0' && (
          <Alert variant="destructive" role="alert">
            <AlertDescription>
              That sign-in link has expired or was already used. Wait 15 minutes, or reset your password.
            </AlertDescription>
          </Alert>
        )}
        {/* Without a Google client id (GOOGLE_CLIENT_ID) there is no Google button, and no 'or'. */}
        {config.data?.googleClientId && (
          <>
            <GoogleSignIn clientId={config.data.googleClientId} />
            <div
              className="flex items-center gap-3 text-xs uppercase text-muted-foreground"
              aria-hidden="true"
            >
              <span className="h-px flex-1 bg-border" />
              or
              <span className="h-px flex-1 bg-border" />
            </div>
          </>
        )}
        <LoginForm config={config.data} />
      </div>
    </AuthLayout>
  );
}
