import type { StudyListItem } from '@mi/contracts/studies';
import { RefreshCw } from 'lucide-react';
import { useId, type ReactNode } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { formatDate, formatDateTime } from '@/lib/format';
import { useAccessReceipts } from '../api/get-access-receipts';

/**
 * My Studies → More actions → 'Access & activity': who can open the owner's study now (and whether
 * they have), and what was done with it, newest first.
 */
export function AccessReceiptsDialog({
  study,
  onClose,
  links,
}: {
  study: StudyListItem | null;
  onClose: () => void;
  /** The study's links (a section composed in by the Studies route), after who can open it. */
  links?: (study: StudyListItem) => ReactNode;
}) {
  const id = useId();
  const receipts = useAccessReceipts(study?.id ?? null);
  const data = receipts.data;

  let body;
  if (!data && !receipts.isError) {
    body = (
      <div className="flex justify-center py-8">
        <Spinner className="size-5" label="Loading access and activity" />
      </div>
    );
  } else if (!data) {
    body = (
      <div className="grid gap-2 text-sm">
        <p className="text-destructive">{errorMessage(receipts.error)}</p>
        <Button variant="outline" size="sm" className="w-fit" onClick={() => void receipts.refetch()}>
          <RefreshCw aria-hidden="true" /> Try again
        </Button>
      </div>
    );
  } else {
    body = (
      <div className="grid gap-6">
        <section aria-labelledby={`${id}-who`} className="grid gap-2">
          <h3 id={`${id}-who`} className="text-sm font-semibold">
            Who can open this study
          </h3>
          {data.current.length === 0 ? (
            <p className="text-sm text-muted-foreground">Only you. This study is not shared with anyone.</p>
          ) : (
            <ul className="grid gap-2" aria-label="Who can open this study">
              {data.current.map((entry) => (
                <li key={entry.shareId} className="grid gap-1 rounded-md border p-2.5 text-sm">
                  <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1">
                    <span className="min-w-0 truncate font-medium" title={entry.email}>
                      {entry.name ? `${entry.name} (${entry.email})` : entry.email}
                    </span>
                    {!entry.accepted && <Badge variant="secondary">Waiting for sign-up</Badge>}
                  </div>
                  <p className="text-xs text-muted-foreground">
                    Shared on {formatDate(entry.sharedAt)} ·{' '}
                    {entry.firstOpenedAt ? `Opened ${formatDateTime(entry.firstOpenedAt)}` : 'Not opened yet'}
                  </p>
                </li>
              ))}
            </ul>
          )}
        </section>
        {study && links?.(study)}
        <section aria-labelledby={`${id}-activity`} className="grid gap-2">
          <h3 id={`${id}-activity`} className="text-sm font-semibold">
            Activity
          </h3>
          {data.events.length === 0 ? (
            <p className="text-sm text-muted-foreground">Nothing has been done with this study yet.</p>
          ) : (
            <ol className="grid max-h-72 gap-1.5 overflow-y-auto" aria-label="Activity">
              {data.events.map((event, index) => (
                <li
                  key={`${event.at}-${index}`}
                  className="grid gap-0.5 border-b pb-1.5 text-sm last:border-b-0 sm:grid-cols-[9.5rem_minmax(0,1fr)] sm:gap-3"
                >
                  <time
                    dateTime={event.at}
                    className="whitespace-nowrap text-xs text-muted-foreground sm:text-sm"
                  >
                    {formatDateTime(event.at)}
                  </time>
                  <span className="min-w-0 break-words">
                    <span className="font-medium">{event.actor}</span>: {event.action}
                    {event.detail ? ` (${event.detail})` : ''}
                  </span>
                </li>
              ))}
            </ol>
          )}
        </section>
      </div>
    );
  }

  return (
    <Dialog open={study !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="sm:max-w-xl">
        <DialogHeader>
          <DialogTitle>Access &amp; activity</DialogTitle>
          <DialogDescription>
            Who can open{' '}
            <span className="font-medium text-foreground">
              {study?.metadata.studyDescription || 'this study'}
            </span>{' '}
            and what was done with it.
          </DialogDescription>
        </DialogHeader>
        {body}
      </DialogContent>
    </Dialog>
  );
}
