import type { User } from '@mi/contracts/auth';
import { MailWarning } from 'lucide-react';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useResendVerification } from '../api/resend-verification';

/**
 * Shown in the signed-in layout until the user proves they own their email address; until then,
 * nothing other people address to that email (shares, transfers, invitations) reaches the account.
 */
export function EmailVerificationBanner({ user }: { user: User }) {
  const resend = useResendVerification();
  if (user.emailVerified) return null;
  const onResend = () =>
    resend.mutate(undefined, {
      onSuccess: (res) => toast({ title: 'Verification email sent', description: res.message }),
      onError: (err) => toastError(errorMessage(err)),
    });
  return (
    <Alert
      variant="info"
      role="region"
      aria-label="Email verification"
      className="mb-6 flex-wrap items-center"
    >
      <MailWarning aria-hidden="true" />
      {/* A 16rem basis sends the button to its own line on a phone rather than over the text. */}
      <div className="grid min-w-0 flex-1 basis-64 gap-1">
        <AlertTitle>Please verify your email address</AlertTitle>
        <AlertDescription className="[overflow-wrap:anywhere]">
          We sent a confirmation link to {user.email}. Until you confirm it, studies that other people share
          or transfer to this address cannot reach your account.
        </AlertDescription>
      </div>
      <Button size="sm" variant="outline" onClick={onResend} disabled={resend.isPending}>
        Resend verification email
      </Button>
    </Alert>
  );
}
