import { usePublicConfig } from '@/features/auth/api/get-public-config';
import { RegisterPatientForm } from '@/features/auth/components/register-patient-form';
import { AuthLayout } from '@/components/layouts/auth-layout';

export default function RegisterPatientRoute() {
  const config = usePublicConfig();
  return (
    <AuthLayout
      wide
      title="Patient Registration"
      description="Create an account to upload, view and share your medical imaging studies."
    >
      <RegisterPatientForm config={config.data} />
    </AuthLayout>
  );
}
