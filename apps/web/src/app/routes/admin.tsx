import { PageHeader } from '@/components/page-header';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { FailedJobsList } from '@/features/admin/components/failed-jobs-list';
import { OutboxList } from '@/features/admin/components/outbox-list';
import { ProfessionalsList } from '@/features/admin/components/professionals-list';
import { ProvidersAdmin } from '@/features/admin/components/providers-admin';

/** /admin: operator views (admins only; see RequireAdmin). */
export default function AdminRoute() {
  return (
    <>
      <PageHeader
        title="Administration"
        description="Professional verification, the provider directory, outgoing mail and background jobs"
      />
      <Tabs defaultValue="outbox">
        <TabsList>
          <TabsTrigger value="professionals">Professionals</TabsTrigger>
          <TabsTrigger value="providers">Providers</TabsTrigger>
          <TabsTrigger value="outbox">Outbox</TabsTrigger>
          <TabsTrigger value="failed-jobs">Failed jobs</TabsTrigger>
        </TabsList>
        <TabsContent value="professionals">
          <ProfessionalsList />
        </TabsContent>
        <TabsContent value="providers">
          <ProvidersAdmin />
        </TabsContent>
        <TabsContent value="outbox">
          <OutboxList />
        </TabsContent>
        <TabsContent value="failed-jobs">
          <FailedJobsList />
        </TabsContent>
      </Tabs>
    </>
  );
}
