import { FeatureNotice } from '@/components/feature-notice';
import { PageHeader } from '@/components/page-header';

/** /analysis/services: the Analysis services page. */
export default function AnalysisServicesRoute() {
  return (
    <>
      <PageHeader title="Analysis Services" description="Choose an analysis for your study" />
      <FeatureNotice>Ordering an analysis for a study is not available yet.</FeatureNotice>
    </>
  );
}
