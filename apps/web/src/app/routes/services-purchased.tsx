import { FeatureNotice } from '@/components/feature-notice';
import { PageHeader } from '@/components/page-header';

/** /services/purchased: the Purchased Services page. */
export default function ServicesPurchasedRoute() {
  return (
    <>
      <PageHeader title="Purchased Services" description="View and manage your purchased services" />
      <FeatureNotice>Purchased services will be listed here once purchasing is available.</FeatureNotice>
    </>
  );
}
