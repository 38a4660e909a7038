import { ForgotPasswordForm } from '@/features/auth/components/forgot-password-form';
import { AuthLayout } from '@/components/layouts/auth-layout';
import { BackToLogin } from './back-to-login';

/** /forgot-password: the Forgot Password page. */
export default function ForgotPasswordRoute() {
  return (
    <AuthLayout title="Forgot Password">
      <div className="grid gap-4">
        <ForgotPasswordForm />
        <BackToLogin />
      </div>
    </AuthLayout>
  );
}
