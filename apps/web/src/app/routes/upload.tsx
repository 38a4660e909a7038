import { useLocation, useSearchParams } from 'react-router';
import { SectionErrorBoundary } from '@/components/section-error-boundary';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { UploadStudy } from '@/features/upload/components/upload-study';
import { safeAppPath } from '@/lib/safe-url';

/** /upload and /uploadOnly: the Upload Medical Study page. */
export default function UploadRoute() {
  const [params] = useSearchParams();
  const location = useLocation();
  const user = useCurrentUser();
  return (
    <SectionErrorBoundary
      title="The upload area could not be shown"
      description="Something went wrong on this page. Try again; if it keeps happening, reload the page."
      resetKeys={[location.key]}
    >
      <UploadStudy user={user} backUrl={safeAppPath(params.get('backUrl'))} />
    </SectionErrorBoundary>
  );
}
