import { FileImage } from 'lucide-react';
import { Link } from 'react-router';
import { PageHeader } from '@/components/page-header';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { LinksPage } from '@/features/study-links/components/links-page';

/** /links: the study links (SMART Health Links) the user made. */
export default function LinksRoute() {
  return (
    <>
      <PageHeader
        title="Links"
        description="Links and QR codes that open your studies without an account: who opened them, and when they end."
        actions={
          <Button asChild variant="outline">
            <Link to={paths.studies}>
              <FileImage aria-hidden="true" /> My Studies
            </Link>
          </Button>
        }
      />
      <LinksPage />
    </>
  );
}
