import { useQueryClient } from '@tanstack/react-query';
import { Upload } from 'lucide-react';
import type { StudyListItem } from '@mi/contracts/studies';
import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { PageHeader } from '@/components/page-header';
import { Button } from '@/components/ui/button';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { paths, uploadPath } from '@/config/paths';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { linkShareFromSearch } from '@/features/auth/api/link-share';
import { usePendingJobs } from '@/features/studies/api/get-pending-jobs';
import { BusyOverlay } from '@/features/studies/components/busy-overlay';
import { MyStudies } from '@/features/studies/components/my-studies';
import { PendingJobsBadge } from '@/features/studies/components/pending-jobs-badge';
import { SharedStudies } from '@/features/studies/components/shared-studies';
import { useOwnershipLink } from '@/features/studies/hooks/use-ownership-link';
import { CreateLinkDialog } from '@/features/study-links/components/create-link-dialog';
import { StudyLinksSection } from '@/features/study-links/components/study-links-section';
import { queryKeys } from '@/lib/query-keys';

type StudiesTab = 'my_studies' | 'shared_studies';

/** The Studies list's ?tab: my_studies (default, also when invalid) or shared_studies. */
function readTab(value: string | null): StudiesTab {
  return value === 'shared_studies' ? 'shared_studies' : 'my_studies';
}

/**
 * A share link opened while already signed in (no sign-in to carry it through): the share is given
 * to this account here, the Shared Studies list read again and the parameters removed.
 */
function useShareLinkParams(userId: string) {
  const [params, setParams] = useSearchParams();
  const queryClient = useQueryClient();
  const shareId = params.get('shareId');
  const linked = useRef<string | null>(null);
  useEffect(() => {
    if (!shareId || linked.current === shareId) return;
    linked.current = shareId;
    void linkShareFromSearch(params.toString(), userId).then(() => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.shares.sharedWithUser(userId) });
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          next.delete('shareId');
          next.delete('shareToken');
          return next;
        },
        { replace: true },
      );
    });
  }, [shareId, params, userId, queryClient, setParams]);
}

export default function StudiesRoute() {
  const user = useCurrentUser();
  const [params, setParams] = useSearchParams();
  const tab = readTab(params.get('tab'));
  const newOnly = params.get('newOnly') === 'true';
  const pending = usePendingJobs(user.id);
  const transferring = useOwnershipLink(user.id);
  const [linkStudies, setLinkStudies] = useState<StudyListItem[] | null>(null);
  useShareLinkParams(user.id);
  const selectTab = (value: string) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.set('tab', readTab(value));
        return next;
      },
      { replace: true },
    );

  return (
    <>
      <PageHeader
        title="My Studies"
        description="Manage and analyze your medical studies"
        actions={
          <>
            <PendingJobsBadge count={pending.processCount} />
            <Button asChild>
              <Link to={uploadPath(paths.studies)}>
                <Upload aria-hidden="true" /> Upload New Study
              </Link>
            </Button>
          </>
        }
      />
      {/* Only the shown tab is mounted, so switching tabs reads its list again. */}
      <Tabs value={tab} onValueChange={selectTab}>
        <TabsList>
          <TabsTrigger value="my_studies">My Studies</TabsTrigger>
          <TabsTrigger value="shared_studies">Shared Studies</TabsTrigger>
        </TabsList>
        <TabsContent value="my_studies">
          <MyStudies
            userId={user.id}
            newOnly={newOnly}
            processing={pending.processCount}
            sharingAllowed={user.shareMedicalData}
            onShareByLink={setLinkStudies}
            studyLinks={(study) => <StudyLinksSection studyId={study.id} />}
          />
        </TabsContent>
        <TabsContent value="shared_studies">
          <SharedStudies userId={user.id} />
        </TabsContent>
      </Tabs>
      <CreateLinkDialog
        studies={linkStudies}
        userId={user.id}
        sharingAllowed={user.shareMedicalData}
        onClose={() => setLinkStudies(null)}
      />
      <BusyOverlay message={transferring ? 'Transferring ownership, please wait...' : null} />
    </>
  );
}
