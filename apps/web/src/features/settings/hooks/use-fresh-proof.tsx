import { useCallback, useState, type ReactElement } from 'react';
import { isApiError } from '@/lib/api-client';
import { ReauthDialog } from '../components/reauth-dialog';

interface Handlers<T> {
  onSuccess?: (result: T) => void;
  onError?: (err: unknown) => void;
}

/**
 * Runs a security setting's request; when the server asks for a recent proof of identity (403
 * REAUTH_REQUIRED) it opens "Confirm it's you" and, once confirmed, sends the request again.
 * Render `dialog` once in the component that uses it.
 */
export function useFreshProof(): {
  run: <T>(action: () => Promise<T>, handlers?: Handlers<T>) => void;
  dialog: ReactElement;
} {
  const [retry, setRetry] = useState<(() => void) | null>(null);

  const run = useCallback(<T,>(action: () => Promise<T>, handlers: Handlers<T> = {}) => {
    const attempt = () => {
      action().then(
        (result) => handlers.onSuccess?.(result),
        (err: unknown) => {
          if (isApiError(err, 'REAUTH_REQUIRED')) setRetry(() => attempt);
          else handlers.onError?.(err);
        },
      );
    };
    attempt();
  }, []);

  const dialog = (
    <ReauthDialog
      open={retry !== null}
      onCancel={() => setRetry(null)}
      onConfirmed={() => {
        setRetry(null);
        retry?.();
      }}
    />
  );
  return { run, dialog };
}
