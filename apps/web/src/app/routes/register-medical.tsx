import { usePublicConfig } from '@/features/auth/api/get-public-config';
import { RegisterMedicalForm } from '@/features/auth/components/register-medical-form';
import { AuthLayout } from '@/components/layouts/auth-layout';

/** /register/medical: a professional's application; an admin verifies the licence. */
export default function RegisterMedicalRoute() {
  const config = usePublicConfig();
  return (
    <AuthLayout
      wide
      title="Medical Professional Registration"
      description="Apply for a medical professional account. An administrator verifies your licence before you can use it."
    >
      <RegisterMedicalForm config={config.data} />
    </AuthLayout>
  );
}
