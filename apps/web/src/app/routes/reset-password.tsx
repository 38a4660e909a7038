import { ResetPasswordForm } from '@/features/auth/components/reset-password-form';
import { AuthLayout } from '@/components/layouts/auth-layout';
import { BackToLogin } from './back-to-login';

/** /reset-password?email&challenge: the emailed link's page. */
export default function ResetPasswordRoute() {
  return (
    <AuthLayout title="Reset Password">
      <div className="grid gap-4">
        <ResetPasswordForm />
        <BackToLogin />
      </div>
    </AuthLayout>
  );
}
