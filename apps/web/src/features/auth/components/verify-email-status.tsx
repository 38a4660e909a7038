import { useQueryClient } from '@tanstack/react-query';
import { AlertCircle, CheckCircle2 } from 'lucide-react';
import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { errorMessage } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useVerifyEmail } from '../api/verify-email';

/** /verify-email?token: the emailed link's landing page (signed in or not). */
export function VerifyEmailStatus() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const result = useVerifyEmail(token);
  const queryClient = useQueryClient();

  useEffect(() => {
    // A signed-in user's banner disappears once the address is verified.
    if (result.isSuccess) void queryClient.invalidateQueries({ queryKey: queryKeys.me });
  }, [result.isSuccess, queryClient]);

  let body;
  if (token && result.isPending) {
    body = (
      <div className="flex justify-center py-6">
        <Spinner className="size-6" label="Verifying your email address" />
      </div>
    );
  } else if (result.isSuccess) {
    body = (
      <Alert variant="info" role="status">
        <CheckCircle2 aria-hidden="true" />
        <AlertDescription>{result.data.message}</AlertDescription>
      </Alert>
    );
  } else {
    body = (
      <Alert variant="destructive" role="alert">
        <AlertCircle aria-hidden="true" />
        <AlertDescription>
          {token
            ? errorMessage(result.error, 'This verification link is invalid or has expired.')
            : 'This verification link is invalid or has expired.'}
        </AlertDescription>
      </Alert>
    );
  }
  return (
    <div className="grid gap-4">
      {body}
      <Button asChild variant="outline" className="w-full">
        <Link to={paths.home}>Continue</Link>
      </Button>
    </div>
  );
}
