import { useSearchParams } from 'react-router';
import { PageHeader } from '@/components/page-header';
import { AnalysisServicesPage } from '@/features/services/components/analysis-services-page';

/** /analysis/services?studyId=: order an analysis of one study; payment follows on /billing. */
export default function AnalysisServicesRoute() {
  const [params] = useSearchParams();
  return (
    <>
      <PageHeader title="Analysis Services" description="Choose an analysis for your study" />
      <AnalysisServicesPage studyId={params.get('studyId')} />
    </>
  );
}
