import { ArrowLeft } from 'lucide-react';
import { Link, useParams } from 'react-router';
import { useDocumentTitle } from '@/components/page-header';
import { SectionErrorBoundary } from '@/components/section-error-boundary';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { ViewerLauncher } from '@/features/viewer/components/viewer-launcher';

/** /studies/transfer/:studyId: prepares the study, then opens it in the viewer. */
export default function StudyTransferRoute() {
  useDocumentTitle('Study Viewer');
  const { studyId } = useParams();
  const user = useCurrentUser();
  return (
    <SectionErrorBoundary
      title="The study viewer could not be opened"
      description="Something went wrong while preparing the study. Try again; if it keeps happening, reload the page."
      resetKeys={[studyId]}
      className="mx-auto mt-16 w-[calc(100%-2rem)] max-w-md"
      actions={
        <Button asChild variant="outline" size="sm">
          <Link to={paths.studies}>
            <ArrowLeft aria-hidden="true" /> Back to My Studies
          </Link>
        </Button>
      }
    >
      <ViewerLauncher studyId={studyId} userId={user.id} />
    </SectionErrorBoundary>
  );
}
