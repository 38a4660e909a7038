import { RefreshCw } from 'lucide-react';
import { useId } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useStudyLinks } from '../api/get-links';
import { LastOpened, LinkActions, LinkMode, linkTitle, opensText } from './link-parts';
import { useLinkHandlers } from './links-page';
import { LinkStatusBadge } from './link-status-badge';

/** A study's Access & activity → 'Links': the links that carry it, with the same actions as the Links page. */
export function StudyLinksSection({ studyId }: { studyId: string }) {
  const id = useId();
  const links = useStudyLinks(studyId);
  const { handlers, dialogs } = useLinkHandlers();

  let body;
  if (links.isPending) {
    body = <Spinner className="size-5" label="Loading links" />;
  } else if (links.isError) {
    body = (
      <div className="grid gap-2 text-sm">
        <p className="text-destructive">{errorMessage(links.error, 'The links could not be loaded.')}</p>
        <Button variant="outline" size="sm" className="w-fit" onClick={() => void links.refetch()}>
          <RefreshCw aria-hidden="true" /> Try again
        </Button>
      </div>
    );
  } else if (links.data.length === 0) {
    body = <p className="text-sm text-muted-foreground">No link opens this study.</p>;
  } else {
    body = (
      <ul className="grid gap-2" aria-labelledby={`${id}-links`}>
        {links.data.map((link) => (
          <li key={link.id} className="grid gap-2 rounded-md border p-2.5 text-sm">
            <div className="flex min-w-0 flex-wrap items-center justify-between gap-2">
              <span className="min-w-0 font-medium [overflow-wrap:anywhere]">{linkTitle(link)}</span>
              <LinkStatusBadge status={link.status} />
            </div>
            <div className="grid gap-2 text-xs sm:grid-cols-3">
              <LinkMode link={link} />
              <span>
                <span className="text-muted-foreground">Opens </span>
                {opensText(link)}
                <span className="block text-muted-foreground">Expires {formatDateTime(link.expiresAt)}</span>
              </span>
              <span>
                <span className="text-muted-foreground">Last opened </span>
                <LastOpened link={link} />
              </span>
            </div>
            <LinkActions link={link} handlers={handlers} />
          </li>
        ))}
      </ul>
    );
  }

  return (
    <section aria-labelledby={`${id}-links`} className="grid gap-2">
      <div className="flex items-center justify-between gap-2">
        <h3 id={`${id}-links`} className="text-sm font-semibold">
          Links
        </h3>
        <Button asChild variant="link" size="sm" className="h-auto px-0">
          <Link to={paths.links}>All links</Link>
        </Button>
      </div>
      {body}
      {dialogs}
    </section>
  );
}
