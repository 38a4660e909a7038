import { FeatureNotice } from '@/components/feature-notice';
import { PageHeader } from '@/components/page-header';

/** /providers: the Healthcare Providers page. */
export default function ProvidersRoute() {
  return (
    <>
      <PageHeader title="Healthcare Providers" description="Keep a network of trusted healthcare providers" />
      <FeatureNotice>Adding and inviting healthcare providers is not available yet.</FeatureNotice>
    </>
  );
}
