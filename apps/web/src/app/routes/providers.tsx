import { useSearchParams } from 'react-router';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { ProvidersPage } from '@/features/providers/components/providers-page';

/** /providers: the Healthcare Providers page; ?studyId= picks a provider to share that study with. */
export default function ProvidersRoute() {
  const user = useCurrentUser();
  const [params] = useSearchParams();
  return (
    <ProvidersPage
      userId={user.id}
      studyId={params.get('studyId') || null}
      sharingAllowed={user.shareMedicalData}
    />
  );
}
