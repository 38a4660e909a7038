import { REAUTH_WINDOW_MINUTES } from '@mi/contracts/admin';
import {
  createContext,
  useCallback,
  useContext,
  useRef,
  useState,
  type FormEvent,
  type ReactNode,
} from 'react';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { errorMessage, isApiError } from '@/lib/api-client';
import { reauthenticate } from '../api/reauthenticate';
import { FormDialog } from './form-dialog';

type WithReauth = <T>(run: () => Promise<T>) => Promise<T>;
const ReauthContext = createContext<WithReauth | null>(null);

/** Runs an admin action; when the server asks for a recent sign-in, asks for it and runs the action again. */
export function useReauth(): WithReauth {
  const ctx = useContext(ReauthContext);
  if (!ctx) throw new Error('useReauth outside ReauthProvider');
  return ctx;
}

export class ReauthCancelled extends Error {
  constructor() {
    super('Sign in again to continue.');
  }
}

interface Pending {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * The admin console's re-authentication: an action answered 403 REAUTH_REQUIRED opens this prompt
 * (password, then the code when the admin has a second factor); once signed in again the action is
 * repeated. Cancelling fails the action with a clear message.
 */
export function ReauthProvider({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const [step, setStep] = useState<
    { kind: 'password' } | { kind: 'code'; mfaToken: string; message: string }
  >({
    kind: 'password',
  });
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const waiting = useRef<Pending[]>([]);

  const ask = useCallback(
    () =>
      new Promise<void>((resolve, reject) => {
        waiting.current.push({ resolve, reject });
        setStep({ kind: 'password' });
        setValue('');
        setError(null);
        setOpen(true);
      }),
    [],
  );

  const withReauth = useCallback<WithReauth>(
    async (run) => {
      try {
        return await run();
      } catch (err) {
        if (!isApiError(err, 'REAUTH_REQUIRED')) throw err;
        await ask();
        return run();
      }
    },
    [ask],
  );

  const settle = (ok: boolean) => {
    const all = waiting.current.splice(0);
    for (const p of all) {
      if (ok) p.resolve();
      else p.reject(new ReauthCancelled());
    }
    setOpen(false);
  };

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!value.trim()) {
      setError(step.kind === 'password' ? 'Password is required' : 'Code is required');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const res = await reauthenticate(
        step.kind === 'password' ? { password: value } : { mfaToken: step.mfaToken, code: value.trim() },
      );
      if (res.status === 'mfa') {
        setStep({ kind: 'code', mfaToken: res.mfaToken, message: res.message });
        setValue('');
      } else {
        settle(true);
      }
    } catch (err) {
      setError(errorMessage(err, 'Sign-in failed. Please try again.'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <ReauthContext.Provider value={withReauth}>
      {children}
      <FormDialog
        open={open}
        onClose={() => settle(false)}
        onSubmit={submit}
        title="Confirm it's you"
        description={
          step.kind === 'password'
            ? `Admin actions need a sign-in from the last ${REAUTH_WINDOW_MINUTES} minutes. Enter your password to continue.`
            : step.message
        }
        submitLabel={step.kind === 'password' ? 'Continue' : 'Verify'}
        pending={busy}
      >
        {step.kind === 'password' ? (
          <div className="grid gap-2">
            <Label htmlFor="reauth-password">Password</Label>
            <PasswordInput
              id="reauth-password"
              autoComplete="current-password"
              value={value}
              onChange={(e) => setValue(e.target.value)}
              autoFocus
            />
          </div>
        ) : (
          <div className="grid gap-2">
            <Label htmlFor="reauth-code">Verification code</Label>
            <Input
              id="reauth-code"
              inputMode="numeric"
              autoComplete="one-time-code"
              value={value}
              onChange={(e) => setValue(e.target.value)}
              autoFocus
            />
          </div>
        )}
        {error && (
          <Alert variant="destructive" role="alert">
            <AlertDescription>{error}</AlertDescription>
          </Alert>
        )}
      </FormDialog>
    </ReauthContext.Provider>
  );
}
