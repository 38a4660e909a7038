import { PageHeader } from '@/components/page-header';
import { HelpCenter } from '@/features/help/components/help-center';

/** /help: the Help centre. */
export default function HelpRoute() {
  return (
    <>
      <PageHeader title="Help Center" description="Guides and answers about using Medical Imaging" />
      <HelpCenter />
    </>
  );
}
