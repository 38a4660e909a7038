import { useLocation, useSearchParams } from 'react-router';
import { SectionErrorBoundary } from '@/components/section-error-boundary';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { InvitedUpload } from '@/features/upload/components/invited-upload';
import { UploadStudy } from '@/features/upload/components/upload-study';
import { safeAppPath } from '@/lib/safe-url';

/** /upload and /uploadOnly: the Upload Medical Study page; with ?invitedBy= an upload for the inviter. */
export default function UploadRoute() {
  const [params] = useSearchParams();
  const location = useLocation();
  const user = useCurrentUser();
  const backUrl = safeAppPath(params.get('backUrl'));
  const invitedBy = params.get('invitedBy');
  return (
    <SectionErrorBoundary
      title="The upload area could not be shown"
      description="Something went wrong on this page. Try again; if it keeps happening, reload the page."
      resetKeys={[location.key]}
    >
      {invitedBy ? (
        <InvitedUpload user={user} invitedBy={invitedBy} invite={params.get('invite')} backUrl={backUrl} />
      ) : (
        <UploadStudy user={user} backUrl={backUrl} />
      )}
    </SectionErrorBoundary>
  );
}
