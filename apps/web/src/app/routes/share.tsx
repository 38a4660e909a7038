import { ArrowLeft } from 'lucide-react';
import { Link } from 'react-router';
import { PageHeader } from '@/components/page-header';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { ShareEmbed } from '@/features/share-embed/components/share-embed';

/** /share: the Share & Embed page. */
export default function ShareRoute() {
  return (
    <>
      <PageHeader
        title="Share & Embed"
        description="Invite others to upload studies into your account with a QR code, a widget for your website or a link."
        actions={
          <Button asChild variant="outline">
            <Link to={paths.home}>
              <ArrowLeft aria-hidden="true" /> Go Back
            </Link>
          </Button>
        }
      />
      <ShareEmbed />
    </>
  );
}
