import { useSearchParams } from 'react-router';
import { PageHeader } from '@/components/page-header';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { AuditLog } from '@/features/admin/audit/components/audit-log';
import { FailedJobsList } from '@/features/admin/jobs/components/failed-jobs-list';
import { HealthCard } from '@/features/admin/health/components/health-card';
import { HelpArticlesAdmin } from '@/features/admin/help/components/help-articles-admin';
import { OutboxList } from '@/features/admin/outbox/components/outbox-list';
import { ProfessionalsList } from '@/features/admin/professionals/components/professionals-list';
import { ProvidersAdmin } from '@/features/admin/directory/components/providers-admin';
import { RatingsAdmin } from '@/features/admin/ratings/components/ratings-admin';
import { ReauthProvider } from '@/features/admin/shared/components/reauth-provider';
import { ServicesAdmin } from '@/features/admin/catalogue/components/services-admin';
import { UsersAdmin } from '@/features/admin/users/components/users-admin';

const TABS = [
  'users',
  'audit',
  'health',
  'professionals',
  'providers',
  'services',
  'ratings',
  'outbox',
  'failed-jobs',
  'help-articles',
] as const;

/**
 * /admin: operator views (admins only; see RequireAdmin). The open tab is in the address
 * (`?tab=users`), so a reload, the back button or a shared link opens the same one.
 */
export default function AdminRoute() {
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab');
  const tab = TABS.find((t) => t === asked) ?? 'users';
  const openTab = (next: string) =>
    setParams(
      (current) => {
        const updated = new URLSearchParams(current);
        updated.set('tab', next);
        return updated;
      },
      { replace: true },
    );
  return (
    // Admin changes need a recent sign-in: the provider asks for it when the server does.
    <ReauthProvider>
      <PageHeader
        title="Administration"
        description="Accounts, the audit log, health, professional verification, the provider directory, analysis services, ratings, outgoing mail and background jobs"
      />
      <Tabs value={tab} onValueChange={openTab}>
        <TabsList className="h-auto flex-wrap">
          <TabsTrigger value="users">Users</TabsTrigger>
          <TabsTrigger value="audit">Audit log</TabsTrigger>
          <TabsTrigger value="health">Health</TabsTrigger>
          <TabsTrigger value="professionals">Professionals</TabsTrigger>
          <TabsTrigger value="providers">Providers</TabsTrigger>
          <TabsTrigger value="services">Services</TabsTrigger>
          <TabsTrigger value="ratings">Ratings</TabsTrigger>
          <TabsTrigger value="outbox">Outbox</TabsTrigger>
          <TabsTrigger value="failed-jobs">Failed jobs</TabsTrigger>
          <TabsTrigger value="help-articles">Help articles</TabsTrigger>
        </TabsList>
        <TabsContent value="users">
          <UsersAdmin />
        </TabsContent>
        <TabsContent value="audit">
          <AuditLog />
        </TabsContent>
        <TabsContent value="health">
          <HealthCard />
        </TabsContent>
        <TabsContent value="professionals">
          <ProfessionalsList />
        </TabsContent>
        <TabsContent value="providers">
          <ProvidersAdmin />
        </TabsContent>
        <TabsContent value="services">
          <ServicesAdmin />
        </TabsContent>
        <TabsContent value="ratings">
          <RatingsAdmin />
        </TabsContent>
        <TabsContent value="outbox">
          <OutboxList />
        </TabsContent>
        <TabsContent value="failed-jobs">
          <FailedJobsList />
        </TabsContent>
        <TabsContent value="help-articles">
          <HelpArticlesAdmin />
        </TabsContent>
      </Tabs>
    </ReauthProvider>
  );
}
