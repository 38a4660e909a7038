import { Upload } from 'lucide-react';
import { Link } from 'react-router';
import { PageHeader } from '@/components/page-header';
import { Button } from '@/components/ui/button';
import { paths, uploadPath } from '@/config/paths';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { analysisCounts, StatCounters } from '@/features/dashboard/components/stat-counters';
import { usePurchases } from '@/features/orders/api/get-purchases';
import { RecentActivity } from '@/features/notifications/components/recent-activity';
import { WelcomeDialog } from '@/features/onboarding/components/welcome-dialog';
import { usePendingJobs } from '@/features/studies/api/get-pending-jobs';
import { useUserStudies } from '@/features/studies/api/get-user-studies';
import { StudyCards } from '@/features/studies/components/study-cards';
import { PendingJobsBadge } from '@/features/studies/components/pending-jobs-badge';
import { firstName } from '@/lib/user-name';

/** '/': the Dashboard. */
export default function DashboardRoute() {
  const user = useCurrentUser();
  const studies = useUserStudies(user.id);
  const pending = usePendingJobs(user.id);
  const total = studies.data?.length ?? null;
  const purchases = usePurchases(user.id);
  const counts = analysisCounts(purchases.data);

  return (
    <>
      <PageHeader
        title={`Welcome back, ${firstName(user.name)}`}
        description="Your medical imaging studies and recent activity at a glance."
        actions={
          <>
            <PendingJobsBadge count={pending.processCount} />
            <Button asChild>
              <Link to={uploadPath(paths.home)}>
                <Upload aria-hidden="true" /> Upload New Study
              </Link>
            </Button>
          </>
        }
      />
      <div className="grid gap-6">
        <StatCounters
          totalStudies={total}
          pendingAnalysis={counts.pending}
          completedAnalysis={counts.completed}
        />
        <div className="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
          <StudyCards query={studies} />
          {/* On a phone the (height-capped) activity panel comes first, not after every study card. */}
          <div className="order-first lg:order-none">
            <RecentActivity compact={!studies.data?.length} />
          </div>
        </div>
      </div>
      {/* The onboarding belongs to the Dashboard, whose 'Upload New Study' its first step names. */}
      <WelcomeDialog user={user} />
    </>
  );
}
