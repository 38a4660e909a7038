import type { User } from '@mi/contracts/auth';
import { INVITATION_INVALID_MESSAGE } from '@mi/contracts/sharing';
import { Link } from 'react-router';
import { PageHeader } from '@/components/page-header';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { errorMessage } from '@/lib/api-client';
import { useInvitationCheck } from '../api/check-invitation';
import { UploadStudy } from './upload-study';

/**
 * The upload page reached through someone's invite link (?invitedBy=…&invite=…): the token is
 * checked first; a live one sends the upload to the inviter, anything else says the link no longer
 * works and offers the user's own upload page instead.
 */
export function InvitedUpload({
  user,
  invitedBy,
  invite,
  backUrl,
}: {
  user: User;
  invitedBy: string;
  invite: string | null;
  backUrl: string | null;
}) {
  const check = useInvitationCheck(invite);

  if (invite && check.isPending)
    return (
      <div className="flex justify-center p-10">
        <Spinner label="Checking your invitation" />
      </div>
    );

  const data = check.data;
  if (data?.valid && data.kind === 'direct_upload' && invite)
    return (
      <UploadStudy
        user={user}
        backUrl={backUrl}
        shared={{
          targetUserId: invitedBy,
          invitation: invite,
          inviterName: data.inviterName ?? 'the person who invited you',
          room: data.room ?? null,
        }}
      />
    );

  return (
    <>
      <PageHeader title="Upload Medical Study" />
      <Alert variant="destructive">
        <div className="grid gap-1">
          <AlertTitle>This invitation can no longer be used</AlertTitle>
          <AlertDescription className="grid gap-3">
            <span>
              {check.isError ? errorMessage(check.error) : (data?.message ?? INVITATION_INVALID_MESSAGE)}
            </span>
            <span>
              <Button asChild variant="outline" size="sm">
                <Link to={paths.upload}>Upload to my own account instead</Link>
              </Button>
            </span>
          </AlertDescription>
        </div>
      </Alert>
    </>
  );
}
