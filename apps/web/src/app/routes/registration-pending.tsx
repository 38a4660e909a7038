import { Clock } from 'lucide-react';
import { AuthLayout } from '@/components/layouts/auth-layout';
import { BackToLogin } from './back-to-login';

/** /registration-pending: where a professional lands after applying. */
export default function RegistrationPendingRoute() {
  return (
    <AuthLayout title="Registration Pending">
      <div className="grid gap-4 text-center">
        <div className="mx-auto flex size-12 items-center justify-center rounded-full bg-accent text-accent-foreground">
          <Clock className="size-6" aria-hidden="true" />
        </div>
        <p className="text-sm text-muted-foreground">
          Thank you for registering. An administrator will verify your medical licence before your account can
          be used. We will email you once your application has been reviewed.
        </p>
        <p className="text-sm text-muted-foreground">
          Please also confirm your email address with the link we sent you.
        </p>
        <BackToLogin />
      </div>
    </AuthLayout>
  );
}
