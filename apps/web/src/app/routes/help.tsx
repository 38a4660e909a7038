import { FeatureNotice } from '@/components/feature-notice';
import { PageHeader } from '@/components/page-header';

/** /help: the Help centre. */
export default function HelpRoute() {
  return (
    <>
      <PageHeader title="Help Center" description="Guides and answers about using Medical Imaging" />
      <FeatureNotice>Help articles are not available yet.</FeatureNotice>
    </>
  );
}
