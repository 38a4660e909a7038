import { PageHeader } from '@/components/page-header';
import { NotFoundCard } from './not-found';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { DirectoryProfilePage } from '@/features/professional-profile/components/directory-profile-page';

/** /professional/profile: a verified professional's directory profile and offers; missing for everyone else. */
export default function ProfessionalProfileRoute() {
  const user = useCurrentUser();
  if (user.role !== 'professional') return <NotFoundCard />;
  return (
    <>
      <PageHeader
        title="Directory Profile"
        description="How patients find you in the directory, and the readings you offer"
      />
      <DirectoryProfilePage />
    </>
  );
}
