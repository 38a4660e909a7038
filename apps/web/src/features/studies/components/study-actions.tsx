import type { StudyListItem } from '@mi/contracts/studies';
import {
  ArrowRightLeft,
  Download,
  Eye,
  FlaskConical,
  Hand,
  History,
  Info,
  MoreHorizontal,
  QrCode,
  Share2,
  ShieldCheck,
  Stethoscope,
  Trash2,
} from 'lucide-react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { analysisHref, analysisServicesHref, shareWithProviderHref, viewerHref } from '../utils/study-list';

/** The parts of a study's entry that the table's rows and the phone's cards share. */

/** A study offers the actions it has a handler for: My Studies all but Request Ownership, Shared Studies View, Info and that. */
export interface StudyRowHandlers {
  onInfo: (study: StudyListItem) => void;
  onShare?: (study: StudyListItem) => void;
  onDelete?: (study: StudyListItem) => void;
  onDownload?: (study: StudyListItem) => void;
  onTransfer?: (study: StudyListItem) => void;
  onRequestOwnership?: (study: StudyListItem) => void;
  onAccess?: (study: StudyListItem) => void;
  /** 'Share by link / QR': a link or QR code that opens the study without an account. */
  onShareByLink?: (study: StudyListItem) => void;
  /** 'Make a de-identified copy' and 'Download de-identified' (each shows the preview first). */
  onDeidentify?: (study: StudyListItem, mode: 'copy' | 'download') => void;
  /** My Studies: studies ticked for an action on several at once (Share by link / QR). */
  selection?: StudySelection;
}

export interface StudySelection {
  selected: ReadonlySet<string>;
  toggle: (studyId: string, on: boolean) => void;
  /** Ticks or clears every study shown (the page of the list on screen). */
  toggleAll: (on: boolean, shown: readonly StudyListItem[]) => void;
}

/** A study's tick box for actions on a selection. */
export function StudySelectBox({ study, selection }: { study: StudyListItem; selection: StudySelection }) {
  return (
    <Checkbox
      checked={selection.selected.has(study.id)}
      onCheckedChange={(checked) => selection.toggle(study.id, checked === true)}
      aria-label={`Select ${study.metadata.studyDescription || 'study'}`}
    />
  );
}

/** Who shared a study of the Shared Studies tab. */
export interface SharedBy {
  name: string | null;
  email: string;
}

/** Marks a de-identified copy in the list. */
export function DeidentifiedBadge() {
  return (
    <span className="ml-2 inline-flex items-center whitespace-nowrap rounded-full border px-2 py-0.5 text-xs font-medium text-muted-foreground">
      De-identified
    </span>
  );
}

export function NA() {
  return <span className="text-muted-foreground">N/A</span>;
}

export function StudyInfoButton({ study, handlers }: { study: StudyListItem; handlers: StudyRowHandlers }) {
  return (
    <Button
      variant="ghost"
      size="icon"
      className="size-8"
      aria-label="Study information"
      onClick={() => handlers.onInfo(study)}
    >
      <Info aria-hidden="true" />
    </Button>
  );
}

/** 'Get Analysis' for one's own processed study; otherwise the processing state. */
export function StudyStatus({ study, recipient }: { study: StudyListItem; recipient: boolean }) {
  const process = study.status.process;
  // Analyses are ordered for one's own studies; a recipient only views.
  if (process.value === 'completed' && !recipient) {
    return (
      <Button asChild size="sm" variant="outline">
        <Link to={analysisHref(study)}>Get Analysis</Link>
      </Button>
    );
  }
  return <span className="capitalize text-muted-foreground">{process.value}</span>;
}

/** Share and Delete (when handled) and the More actions menu. */
export function StudyActions({
  study,
  handlers,
  recipient,
}: {
  study: StudyListItem;
  handlers: StudyRowHandlers;
  recipient: boolean;
}) {
  const process = study.status.process;
  return (
    <div className="flex items-center gap-0.5">
      {handlers.onShare && (
        <Button
          variant="ghost"
          size="icon"
          className="size-8"
          aria-label="Share study"
          title="Share"
          onClick={() => handlers.onShare?.(study)}
        >
          <Share2 aria-hidden="true" />
        </Button>
      )}
      {handlers.onDelete && (
        <Button
          variant="ghost"
          size="icon"
          className="size-8 text-destructive hover:bg-destructive/10 hover:text-destructive"
          aria-label="Delete study"
          onClick={() => handlers.onDelete?.(study)}
        >
          <Trash2 aria-hidden="true" />
        </Button>
      )}
      <DropdownMenu>
        <DropdownMenuTrigger asChild>
          <Button variant="ghost" size="icon" className="size-8" aria-label="More actions">
            <MoreHorizontal aria-hidden="true" />
          </Button>
        </DropdownMenuTrigger>
        <DropdownMenuContent align="end" className="min-w-40">
          {study.studyId ? (
            <DropdownMenuItem asChild>
              <a href={viewerHref(study)} target="_blank" rel="noopener noreferrer">
                <Eye aria-hidden="true" /> View
              </a>
            </DropdownMenuItem>
          ) : (
            <DropdownMenuItem disabled>
              <Eye aria-hidden="true" /> View
            </DropdownMenuItem>
          )}
          {/* The owner's other ways to order an analysis and to share (a recipient has neither). */}
          {process.value === 'completed' && !recipient && (
            <DropdownMenuItem asChild>
              <Link to={analysisServicesHref(study)}>
                <FlaskConical aria-hidden="true" /> Order Analysis
              </Link>
            </DropdownMenuItem>
          )}
          {handlers.onShare && (
            <DropdownMenuItem asChild>
              <Link to={shareWithProviderHref(study)}>
                <Stethoscope aria-hidden="true" /> Share with a Provider
              </Link>
            </DropdownMenuItem>
          )}
          {handlers.onShareByLink && (
            <DropdownMenuItem onSelect={() => handlers.onShareByLink?.(study)}>
              <QrCode aria-hidden="true" /> Share by link / QR
            </DropdownMenuItem>
          )}
          {handlers.onDownload && (
            <DropdownMenuItem onSelect={() => handlers.onDownload?.(study)}>
              <Download aria-hidden="true" /> Download
            </DropdownMenuItem>
          )}
          {/* A de-identified copy is not de-identified again: its dates would shift a second time. */}
          {handlers.onDeidentify && process.value === 'completed' && !study.deidentified && (
            <>
              <DropdownMenuItem onSelect={() => handlers.onDeidentify?.(study, 'copy')}>
                <ShieldCheck aria-hidden="true" /> Make a de-identified copy
              </DropdownMenuItem>
              <DropdownMenuItem onSelect={() => handlers.onDeidentify?.(study, 'download')}>
                <Download aria-hidden="true" /> Download de-identified
              </DropdownMenuItem>
            </>
          )}
          {handlers.onTransfer && (
            <DropdownMenuItem onSelect={() => handlers.onTransfer?.(study)}>
              <ArrowRightLeft aria-hidden="true" /> Transfer Ownership
            </DropdownMenuItem>
          )}
          {handlers.onRequestOwnership && (
            <DropdownMenuItem onSelect={() => handlers.onRequestOwnership?.(study)}>
              <Hand aria-hidden="true" /> Request Ownership
            </DropdownMenuItem>
          )}
          {handlers.onAccess && (
            <DropdownMenuItem onSelect={() => handlers.onAccess?.(study)}>
              <History aria-hidden="true" /> Access &amp; activity
            </DropdownMenuItem>
          )}
        </DropdownMenuContent>
      </DropdownMenu>
    </div>
  );
}
