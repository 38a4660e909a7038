import { ArrowLeft } from 'lucide-react';
import { Link } from 'react-router';
import { FeatureNotice } from '@/components/feature-notice';
import { PageHeader } from '@/components/page-header';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';

/** /help/:id: a help centre article. */
export default function HelpArticleRoute() {
  return (
    <>
      <PageHeader
        title="Help Article"
        actions={
          <Button asChild variant="outline">
            <Link to={paths.help}>
              <ArrowLeft aria-hidden="true" /> Back to Help Center
            </Link>
          </Button>
        }
      />
      <FeatureNotice>Help articles are not available yet.</FeatureNotice>
    </>
  );
}
