import { VerifyEmailStatus } from '@/features/auth/components/verify-email-status';
import { AuthLayout } from '@/components/layouts/auth-layout';

/** /verify-email?token: the emailed confirmation link lands here, signed in or not. */
export default function VerifyEmailRoute() {
  return (
    <AuthLayout title="Confirm your email address">
      <VerifyEmailStatus />
    </AuthLayout>
  );
}
