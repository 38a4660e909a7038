import type { User } from '@mi/contracts/auth';
import { ArrowLeft, Send, Upload } from 'lucide-react';
import { useNavigate } from 'react-router';
import { PageHeader } from '@/components/page-header';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { useStudyUpload, type SharedUploadTarget } from '../hooks/use-study-upload';
import { SelectedFiles } from './selected-files';
import { SourceTiles } from './source-tiles';
import { UploadProgressDialog } from './upload-progress-dialog';

/**
 * The Upload Medical Study page: pick, check, archive, upload, queue processing. With `shared` (an
 * invite link) the study goes to the inviting user's account.
 */
export function UploadStudy({
  user,
  backUrl,
  shared,
}: {
  user: User;
  backUrl: string | null;
  shared?: SharedUploadTarget;
}) {
  const navigate = useNavigate();
  const upload = useStudyUpload(user, shared);
  const locked = upload.busy || upload.scanning;

  return (
    <>
      <PageHeader
        title="Upload Medical Study"
        description="Upload imaging studies from files, a folder, a ZIP archive or a CD/DVD."
        actions={
          backUrl && (
            <Button variant="outline" disabled={upload.busy} onClick={() => navigate(backUrl)}>
              <ArrowLeft aria-hidden="true" /> Go Back
            </Button>
          )
        }
      />
      <div className="grid gap-6">
        {shared && (
          <Alert variant="info">
            <Send aria-hidden="true" />
            <div className="grid gap-1">
              <AlertTitle>Your files will be sent to {shared.inviterName}</AlertTitle>
              <AlertDescription>
                The studies you upload here go into their account: they can view and share them, and you will
                not see them in your own list.
              </AlertDescription>
            </div>
          </Alert>
        )}
        <SourceTiles disabled={locked} onFiles={(method, files) => void upload.select(method, files)} />
        {upload.scanning && (
          <p className="flex items-center gap-2 text-sm text-muted-foreground">
            <Spinner className="size-4" label="Reading the disc" /> Looking for DICOM files…
          </p>
        )}
        {upload.files.length > 0 && (
          <SelectedFiles
            files={upload.files}
            disabled={locked}
            onRemove={upload.removeFile}
            onClear={upload.clear}
          />
        )}
        <div className="flex justify-end">
          <Button size="lg" onClick={() => void upload.start()} disabled={locked}>
            <Upload aria-hidden="true" />
            {upload.busy ? 'Processing…' : 'Upload Files'}
          </Button>
        </div>
      </div>
      <UploadProgressDialog
        phase={upload.phase}
        percent={upload.percent}
        onBackToStudies={() => {
          upload.finish();
          // Files sent through an invite link never show in the sender's own studies: the dashboard's
          // Pending Jobs and Recent Activity show their processing and then how it ended.
          navigate(shared ? paths.home : paths.studies);
        }}
      />
    </>
  );
}
