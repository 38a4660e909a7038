import { Share2, Upload } from 'lucide-react';
import { Link, useSearchParams } from 'react-router';
import { EmptyState } from '@/components/empty-state';
import { PageHeader } from '@/components/page-header';
import { Button } from '@/components/ui/button';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { paths, uploadPath } from '@/config/paths';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { usePendingJobs } from '@/features/studies/api/get-pending-jobs';
import { MyStudies } from '@/features/studies/components/my-studies';
import { PendingJobsBadge } from '@/features/studies/components/pending-jobs-badge';

type StudiesTab = 'my_studies' | 'shared_studies';

/** The Studies list's ?tab: my_studies (default, also when invalid) or shared_studies. */
function readTab(value: string | null): StudiesTab {
  return value === 'shared_studies' ? 'shared_studies' : 'my_studies';
}

export default function StudiesRoute() {
  const user = useCurrentUser();
  const [params, setParams] = useSearchParams();
  const tab = readTab(params.get('tab'));
  const newOnly = params.get('newOnly') === 'true';
  const pending = usePendingJobs(user.id);
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
      <Tabs value={tab} onValueChange={selectTab}>
        <TabsList>
          <TabsTrigger value="my_studies">My Studies</TabsTrigger>
          <TabsTrigger value="shared_studies">Shared Studies</TabsTrigger>
        </TabsList>
        <TabsContent value="my_studies">
          <MyStudies userId={user.id} newOnly={newOnly} processing={pending.processCount} />
        </TabsContent>
        <TabsContent value="shared_studies">
          <EmptyState icon={Share2} title="No shared studies yet">
            Studies that other people share with you will appear here once sharing is available.
          </EmptyState>
        </TabsContent>
      </Tabs>
    </>
  );
}
