import { MfaVerifyForm } from '@/features/auth/components/mfa-verify-form';
import { AuthLayout } from '@/components/layouts/auth-layout';
import { BackToLogin } from './back-to-login';

/** /mfa/verify?userId&email: the second step of a sign-in. */
export default function MfaVerifyRoute() {
  return (
    <AuthLayout title="Enter MFA code to access the platform">
      <div className="grid gap-4">
        <MfaVerifyForm />
        <BackToLogin />
      </div>
    </AuthLayout>
  );
}
