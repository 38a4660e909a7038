import { SECURITY_REAUTH_WINDOW_MINUTES, type PublicConfig, type User } from '@mi/contracts/auth';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Loader2, Mail } from 'lucide-react';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { errorMessage } from '@/lib/api-client';
import { loadGoogleIdentity } from '@/lib/google-identity';
import { queryKeys } from '@/lib/query-keys';
import { useReauthenticate, useSendReauthCode } from '../api/reauthenticate';

/**
 * "Confirm it's you": a security setting asked for a proof of identity from the last few minutes
 * (the server answered 403 REAUTH_REQUIRED). The user gives the password, a second-factor code
 * (from the authenticator, or emailed on request) or signs in with Google again; the setting is
 * then retried (useFreshProof).
 */
export function ReauthDialog({
  open,
  onCancel,
  onConfirmed,
}: {
  open: boolean;
  onCancel: () => void;
  onConfirmed: () => void;
}) {
  const id = useId();
  const queryClient = useQueryClient();
  const user = queryClient.getQueryData<User | null>(queryKeys.me) ?? null;
  const config = useQuery<PublicConfig>({ queryKey: queryKeys.publicConfig, enabled: open });
  const reauth = useReauthenticate();
  const sendCode = useSendReauthCode();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const { reset: resetReauth } = reauth;
  const { reset: resetSendCode } = sendCode;

  useEffect(() => {
    if (!open) return;
    setPassword('');
    setCode('');
    resetReauth();
    resetSendCode();
  }, [open, resetReauth, resetSendCode]);

  const confirmWith = (body: Parameters<typeof reauth.mutate>[0]) =>
    reauth.mutate(body, { onSuccess: () => onConfirmed() });

  const onPassword = (e: FormEvent) => {
    e.preventDefault();
    if (password) confirmWith({ password });
  };
  const onCode = (e: FormEvent) => {
    e.preventDefault();
    if (code.trim()) confirmWith({ code: code.trim() });
  };

  const hasPassword = user?.hasPassword ?? true;
  const totp = Boolean(user?.mfaEnabled && user.totpEnrolled);
  const emailCodes = Boolean(user?.mfaEnabled && !user.totpEnrolled);
  const google = Boolean(user?.googleLinked && config.data?.googleClientId);
  const error = reauth.isError
    ? errorMessage(reauth.error)
    : sendCode.isError
      ? errorMessage(sendCode.error)
      : null;

  return (
    <Dialog open={open} onOpenChange={(next) => !next && onCancel()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Confirm it&apos;s you</DialogTitle>
          <DialogDescription>
            For your security, this change needs a confirmation from the last {SECURITY_REAUTH_WINDOW_MINUTES}{' '}
            minutes.
          </DialogDescription>
        </DialogHeader>
        <div className="grid gap-5">
          {hasPassword && (
            <form
              onSubmit={onPassword}
              className="grid gap-2"
              noValidate
              aria-label="Confirm with your password"
            >
              <Label htmlFor={`${id}-password`}>Current password</Label>
              <PasswordInput
                id={`${id}-password`}
                autoComplete="current-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
              <Button type="submit" disabled={!password || reauth.isPending} className="justify-self-start">
                {reauth.isPending && <Loader2 className="animate-spin" aria-hidden="true" />}
                Confirm
              </Button>
            </form>
          )}
          {(totp || emailCodes) && (
            <form onSubmit={onCode} className="grid gap-2" noValidate aria-label="Confirm with a code">
              <Label htmlFor={`${id}-code`}>
                {totp ? 'Or a code from your authenticator app' : 'Or a code sent to your email'}
              </Label>
              {emailCodes && (
                <div className="flex flex-wrap items-center gap-2">
                  <Button
                    type="button"
                    variant="outline"
                    size="sm"
                    disabled={sendCode.isPending}
                    onClick={() => sendCode.mutate()}
                  >
                    <Mail aria-hidden="true" />{' '}
                    {sendCode.isSuccess ? 'Email another code' : 'Email me a code'}
                  </Button>
                  {sendCode.isSuccess && (
                    <span role="status" className="text-sm text-muted-foreground">
                      {sendCode.data.message}
                    </span>
                  )}
                </div>
              )}
              <Input
                id={`${id}-code`}
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={10}
                value={code}
                onChange={(e) => setCode(e.target.value)}
              />
              <Button
                type="submit"
                variant="outline"
                disabled={!code.trim() || reauth.isPending}
                className="justify-self-start"
              >
                Confirm with code
              </Button>
            </form>
          )}
          {google && config.data?.googleClientId && (
            <div className="grid gap-2">
              <span className="text-sm font-medium">
                {hasPassword ? 'Or sign in with Google again' : 'Sign in with Google again'}
              </span>
              <GoogleConfirm
                clientId={config.data.googleClientId}
                onCredential={(googleCredential) => confirmWith({ googleCredential })}
              />
            </div>
          )}
          {!hasPassword && !google && !totp && !emailCodes && (
            <p className="text-sm text-muted-foreground">
              Sign out and sign in again, then make this change within {SECURITY_REAUTH_WINDOW_MINUTES}{' '}
              minutes.
            </p>
          )}
          {error && (
            <p role="alert" className="text-sm text-destructive">
              {error}
            </p>
          )}
        </div>
        <DialogFooter>
          <Button type="button" variant="outline" onClick={onCancel}>
            Cancel
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

/** Google's button; its ID token (issued now, for this account) is the proof. */
function GoogleConfirm({
  clientId,
  onCredential,
}: {
  clientId: string;
  onCredential: (credential: string) => void;
}) {
  const container = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  const latest = useRef(onCredential);
  latest.current = onCredential;
  useEffect(() => {
    let active = true;
    loadGoogleIdentity().then(
      (google) => {
        if (!active || !container.current) return;
        google.accounts.id.initialize({
          client_id: clientId,
          ux_mode: 'popup',
          callback: (response) => {
            if (response.credential) latest.current(response.credential);
          },
        });
        google.accounts.id.renderButton(container.current, {
          type: 'standard',
          theme: 'outline',
          size: 'large',
          text: 'continue_with',
        });
      },
      () => active && setFailed(true),
    );
    return () => {
      active = false;
    };
  }, [clientId]);
  if (failed)
    return <p className="text-sm text-muted-foreground">Google sign-in is unavailable right now.</p>;
  return <div ref={container} className="min-h-10" />;
}
