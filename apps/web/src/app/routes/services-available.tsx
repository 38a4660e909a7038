import { FeatureNotice } from '@/components/feature-notice';
import { PageHeader } from '@/components/page-header';

/** /services/available: the Available Services page. */
export default function ServicesAvailableRoute() {
  return (
    <>
      <PageHeader title="Available Services" description="Browse and purchase medical analysis services" />
      <FeatureNotice>The analysis service catalogue and purchasing are not available yet.</FeatureNotice>
    </>
  );
}
