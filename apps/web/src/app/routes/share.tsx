import { ArrowLeft } from 'lucide-react';
import { Link } from 'react-router';
import { FeatureNotice } from '@/components/feature-notice';
import { PageHeader } from '@/components/page-header';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';

/** /share: the Share & Embed page. */
export default function ShareRoute() {
  return (
    <>
      <PageHeader
        title="Share & Embed"
        description="Invite others with a link, a QR code or an embeddable widget."
        actions={
          <Button asChild variant="outline">
            <Link to={paths.home}>
              <ArrowLeft aria-hidden="true" /> Go Back
            </Link>
          </Button>
        }
      />
      <FeatureNotice>Invite links, QR codes and the embeddable widget are not available yet.</FeatureNotice>
    </>
  );
}
