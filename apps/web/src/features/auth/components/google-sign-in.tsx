import { useEffect, useRef, useState } from 'react';
import { Spinner } from '@/components/ui/spinner';
import { toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { loadGoogleIdentity } from '@/lib/google-identity';
import { useGoogleLogin } from '../api/google-login';
import { useCompleteSignIn } from '../hooks/use-complete-sign-in';

/**
 * The login page's Google sign-in button. Google hands us an ID token, which the server
 * verifies (POST /api/auth/google); the rest is the same as a password sign-in.
 */
export function GoogleSignIn({ clientId }: { clientId: string }) {
  return <GoogleButton clientId={clientId} />;
}

function GoogleButton({ clientId }: { clientId: string }) {
  const container = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');
  const googleLogin = useGoogleLogin();
  const completeSignIn = useCompleteSignIn();
  // The Google callback is registered once; keep it pointed at the latest render's handlers.
  const onCredential = useRef<(credential: string) => void>(() => undefined);
  onCredential.current = (credential: string) => {
    googleLogin.mutateAsync(credential).then(completeSignIn, (err: unknown) => toastError(errorMessage(err)));
  };

  useEffect(() => {
    let active = true;
    loadGoogleIdentity().then(
      (google) => {
        if (!active || !container.current) return;
        google.accounts.id.initialize({
          client_id: clientId,
          ux_mode: 'popup',
          callback: (response) => {
            if (response.credential) onCredential.current(response.credential);
          },
        });
        google.accounts.id.renderButton(container.current, {
          type: 'standard',
          theme: 'outline',
          size: 'large',
          text: 'signin_with',
          width: Math.min(container.current.offsetWidth || 320, 400),
        });
        setState('ready');
      },
      (err: unknown) => {
        // A missing Google library is only logged.
        console.error('Google sign-in could not be loaded', err);
        if (active) setState('failed');
      },
    );
    return () => {
      active = false;
    };
  }, [clientId]);

  return (
    <div className="grid justify-items-center gap-2">
      <div
        ref={container}
        className={state === 'failed' ? 'hidden' : 'flex min-h-10 w-full justify-center'}
        aria-busy={state === 'loading' || undefined}
      />
      {state === 'loading' && <Spinner className="size-4" label="Loading Google sign-in" />}
      {state === 'failed' && (
        <p className="text-center text-xs text-muted-foreground">Google sign-in is unavailable right now.</p>
      )}
      {googleLogin.isPending && <Spinner className="size-4" label="Signing in with Google" />}
    </div>
  );
}
