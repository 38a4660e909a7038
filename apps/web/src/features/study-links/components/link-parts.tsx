import type { LinkSummary } from '@mi/contracts/links';
import { KeyRound, Pause, Play, QrCode, CalendarPlus, Ban, Download, Link2 } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { formatDate, formatDateTime } from '@/lib/format';
import { LINK_MODE_LABELS, linkActions } from '../utils/link-policy';

/** The pieces of a link's entry that the Links table, its cards and a study's Access & activity share. */

export interface LinkRowHandlers {
  onPause: (link: LinkSummary, paused: boolean) => void;
  onExtend: (link: LinkSummary) => void;
  onRevoke: (link: LinkSummary) => void;
  /** The link whose change is on its way (its buttons wait). */
  busyId?: string | null;
}

export function linkTitle(link: LinkSummary): string {
  return link.label || (link.mode === 'checkin' ? 'Check-in link' : 'Untitled link');
}

/** Opens so far, against the limit when there is one: '3 / 10', '3 (no limit)'. */
export function opensText(link: LinkSummary): string {
  return link.maxOpens === null ? `${link.opens} (no limit)` : `${link.opens} / ${link.maxOpens}`;
}

/** The studies a link carries, by description and date. */
export function LinkStudies({ link }: { link: LinkSummary }) {
  return (
    <ul className="grid gap-0.5">
      {link.studies.map((study) => (
        <li key={study.id} className="[overflow-wrap:anywhere]">
          {study.description || 'Untitled study'}
          {study.studyDate && <span className="text-muted-foreground"> · {formatDate(study.studyDate)}</span>}
        </li>
      ))}
    </ul>
  );
}

/** Mode, with what the link asks and allows. */
export function LinkMode({ link }: { link: LinkSummary }) {
  const Icon = link.mode === 'checkin' ? QrCode : Link2;
  return (
    <span className="grid gap-0.5">
      <span className="inline-flex items-center gap-1.5 whitespace-nowrap">
        <Icon className="size-4 text-muted-foreground" aria-hidden="true" /> {LINK_MODE_LABELS[link.mode]}
      </span>
      {link.hasPasscode && (
        <span className="inline-flex items-center gap-1.5 text-xs text-muted-foreground">
          <KeyRound className="size-3.5" aria-hidden="true" /> Passcode
          {link.passcodeAttemptsLeft !== null && ` (${link.passcodeAttemptsLeft} wrong tries left)`}
        </span>
      )}
      {link.allowDownload && (
        <span className="inline-flex items-center gap-1.5 text-xs text-muted-foreground">
          <Download className="size-3.5" aria-hidden="true" /> Download allowed
        </span>
      )}
    </span>
  );
}

/** When it was last opened and by whom; the name is what the recipient typed, shown only as text. */
export function LastOpened({ link }: { link: LinkSummary }) {
  if (!link.lastOpenedAt) return <span className="text-muted-foreground">Never</span>;
  return (
    <span className="grid gap-0.5">
      <time dateTime={link.lastOpenedAt} className="whitespace-nowrap">
        {formatDateTime(link.lastOpenedAt)}
      </time>
      {link.lastRecipient && (
        <span className="text-xs text-muted-foreground [overflow-wrap:anywhere]">
          by {link.lastRecipient}
        </span>
      )}
    </span>
  );
}

/** Pause or Resume, Extend and Revoke, as far as the link's status allows. */
export function LinkActions({ link, handlers }: { link: LinkSummary; handlers: LinkRowHandlers }) {
  const can = linkActions(link.status);
  const busy = handlers.busyId === link.id;
  const title = link.label ? ` ${link.label}` : '';
  return (
    <div className="flex flex-wrap gap-1.5">
      {can.pause && (
        <Button
          size="sm"
          variant="outline"
          disabled={busy}
          aria-label={`Pause link${title}`}
          onClick={() => handlers.onPause(link, true)}
        >
          <Pause aria-hidden="true" /> Pause
        </Button>
      )}
      {can.resume && (
        <Button
          size="sm"
          variant="outline"
          disabled={busy}
          aria-label={`Resume link${title}`}
          onClick={() => handlers.onPause(link, false)}
        >
          <Play aria-hidden="true" /> Resume
        </Button>
      )}
      {can.extend && (
        <Button
          size="sm"
          variant="outline"
          disabled={busy}
          aria-label={`Extend link${title}`}
          onClick={() => handlers.onExtend(link)}
        >
          <CalendarPlus aria-hidden="true" /> Extend
        </Button>
      )}
      {can.revoke && (
        <Button
          size="sm"
          variant="outline"
          disabled={busy}
          aria-label={`Revoke link${title}`}
          className="text-destructive hover:bg-destructive/10 hover:text-destructive"
          onClick={() => handlers.onRevoke(link)}
        >
          <Ban aria-hidden="true" /> Revoke
        </Button>
      )}
    </div>
  );
}
