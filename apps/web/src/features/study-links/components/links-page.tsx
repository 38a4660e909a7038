import type { LinkSummary } from '@mi/contracts/links';
import { Link2, RefreshCw } from 'lucide-react';
import { useState } from 'react';
import { EmptyState } from '@/components/empty-state';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { useMediaQuery } from '@/hooks/use-media-query';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useLinks } from '../api/get-links';
import { useUpdateLink } from '../api/update-link';
import { ExtendLinkDialog } from './extend-link-dialog';
import {
  LastOpened,
  LinkActions,
  LinkMode,
  LinkStudies,
  linkTitle,
  opensText,
  type LinkRowHandlers,
} from './link-parts';
import { LinkStatusBadge } from './link-status-badge';
import { RevokeLinkDialog } from './revoke-link-dialog';

const COLUMNS = ['Label', 'Studies', 'Mode', 'Status', 'Opens', 'Last opened', 'Expires', 'Actions'];

function LinksTable({ links, handlers }: { links: LinkSummary[]; handlers: LinkRowHandlers }) {
  return (
    <div className="relative overflow-x-auto rounded-lg border bg-card shadow-sm">
      <table className="w-full text-sm">
        <caption className="sr-only">Your study links</caption>
        <thead className="bg-muted/60 text-muted-foreground">
          <tr>
            {COLUMNS.map((c) => (
              <th key={c} scope="col" className="px-3 py-3 text-left font-medium">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {links.map((link) => (
            <tr key={link.id} className="border-t align-top hover:bg-muted/40">
              <th scope="row" className="max-w-48 px-3 py-3 text-left font-medium [overflow-wrap:anywhere]">
                {linkTitle(link)}
                <span className="block text-xs font-normal text-muted-foreground">
                  Created {formatDateTime(link.createdAt)}
                </span>
              </th>
              <td className="max-w-56 px-3 py-3">
                <LinkStudies link={link} />
              </td>
              <td className="px-3 py-3">
                <LinkMode link={link} />
              </td>
              <td className="px-3 py-3">
                <LinkStatusBadge status={link.status} />
              </td>
              <td className="whitespace-nowrap px-3 py-3">{opensText(link)}</td>
              <td className="max-w-40 px-3 py-3">
                <LastOpened link={link} />
              </td>
              <td className="whitespace-nowrap px-3 py-3">{formatDateTime(link.expiresAt)}</td>
              <td className="px-3 py-3">
                <LinkActions link={link} handlers={handlers} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function LinkCard({ link, handlers }: { link: LinkSummary; handlers: LinkRowHandlers }) {
  return (
    <Card className="grid min-w-0 gap-3 p-4">
      <div className="flex min-w-0 items-start justify-between gap-2">
        <h3 className="min-w-0 font-medium [overflow-wrap:anywhere]">{linkTitle(link)}</h3>
        <LinkStatusBadge status={link.status} />
      </div>
      <div className="text-sm">
        <LinkStudies link={link} />
      </div>
      <dl className="grid grid-cols-2 gap-x-3 gap-y-2 text-sm">
        <div>
          <dt className="text-muted-foreground">Mode</dt>
          <dd>
            <LinkMode link={link} />
          </dd>
        </div>
        <div>
          <dt className="text-muted-foreground">Opens</dt>
          <dd>{opensText(link)}</dd>
        </div>
        <div>
          <dt className="text-muted-foreground">Last opened</dt>
          <dd>
            <LastOpened link={link} />
          </dd>
        </div>
        <div>
          <dt className="text-muted-foreground">Expires</dt>
          <dd>{formatDateTime(link.expiresAt)}</dd>
        </div>
      </dl>
      <div className="border-t pt-3">
        <LinkActions link={link} handlers={handlers} />
      </div>
    </Card>
  );
}

/** Pause and resume with their toasts; Extend and Revoke open their dialogs. */
export function useLinkHandlers() {
  const update = useUpdateLink();
  const [extending, setExtending] = useState<LinkSummary | null>(null);
  const [revoking, setRevoking] = useState<LinkSummary | null>(null);
  const handlers: LinkRowHandlers = {
    onPause: (link, paused) =>
      update.mutate(
        { id: link.id, body: { paused } },
        {
          onSuccess: () =>
            toast(
              paused
                ? { title: 'Link paused', description: 'It does not open until you resume it.' }
                : { title: 'Link resumed', description: 'It opens again until it expires.' },
            ),
          onError: (err) => toastError(errorMessage(err, 'The link could not be changed. Please try again.')),
        },
      ),
    onExtend: setExtending,
    onRevoke: setRevoking,
    busyId: update.isPending ? update.variables?.id : null,
  };
  const dialogs = (
    <>
      <ExtendLinkDialog link={extending} onClose={() => setExtending(null)} />
      <RevokeLinkDialog link={revoking} onClose={() => setRevoking(null)} />
    </>
  );
  return { handlers, dialogs };
}

/**
 * The Links page (/links): every link the user made, with its studies, status, opens and last
 * recipient. A table where it fits beside the sidebar (1280 px and wider, as My Studies), cards below.
 */
export function LinksPage() {
  const links = useLinks();
  const wide = useMediaQuery('(min-width: 1280px)');
  const { handlers, dialogs } = useLinkHandlers();

  let body;
  if (links.isPending) {
    body = (
      <div className="flex justify-center py-16">
        <Spinner className="size-6" label="Loading links" />
      </div>
    );
  } else if (links.isError) {
    body = (
      <Alert variant="destructive">
        <div className="grid gap-2">
          <AlertTitle>Your links could not be loaded</AlertTitle>
          <AlertDescription>{errorMessage(links.error)}</AlertDescription>
          <Button variant="outline" size="sm" className="w-fit" onClick={() => void links.refetch()}>
            <RefreshCw aria-hidden="true" /> Try again
          </Button>
        </div>
      </Alert>
    );
  } else if (links.data.length === 0) {
    body = (
      <EmptyState icon={Link2} title="No links yet">
        In My Studies, open a study's More actions menu and choose 'Share by link / QR'. Or select several
        studies and share them in one link.
      </EmptyState>
    );
  } else if (wide) {
    body = <LinksTable links={links.data} handlers={handlers} />;
  } else {
    body = (
      <ul aria-label="Your study links" className="grid gap-3 sm:grid-cols-2">
        {links.data.map((link) => (
          <li key={link.id} className="grid min-w-0">
            <LinkCard link={link} handlers={handlers} />
          </li>
        ))}
      </ul>
    );
  }
  return (
    <>
      {body}
      {dialogs}
    </>
  );
}
