import type { StudyListItem } from '@mi/contracts/studies';
import {
  ArrowDown,
  ArrowUp,
  ArrowUpDown,
  ArrowRightLeft,
  Download,
  Eye,
  FlaskConical,
  Hand,
  History,
  Info,
  MoreHorizontal,
  Share2,
  Stethoscope,
  Trash2,
} from 'lucide-react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { formatDate } from '@/lib/format';
import {
  analysisHref,
  analysisServicesHref,
  patientDisplayName,
  shareWithProviderHref,
  viewerHref,
  type StudySort,
  type StudySortKey,
} from '../utils/study-list';

interface Column {
  label: string;
  sortKey?: StudySortKey;
}

/** The Studies list's columns and their sort keys; Shared Studies adds who shared each study. */
const COLUMNS: Column[] = [
  { label: 'Study Description', sortKey: 'id' },
  { label: 'Patient Name', sortKey: 'patientName' },
  { label: 'Shared By' },
  { label: 'Modality', sortKey: 'type' },
  { label: 'Upload Date', sortKey: 'uploadDate' },
  { label: 'Study Date', sortKey: 'studyDate' },
  { label: 'Latest Completion', sortKey: 'latestCompletionDate' },
  { label: 'Status' },
  { label: 'Actions' },
];

function SortHeader({
  column,
  sort,
  onSort,
}: {
  column: Column;
  sort: StudySort;
  onSort: (key: StudySortKey) => void;
}) {
  if (!column.sortKey) {
    return (
      <th scope="col" className="px-2 py-3 text-left font-medium">
        {column.label}
      </th>
    );
  }
  const active = sort.key === column.sortKey;
  const Icon = !active ? ArrowUpDown : sort.direction === 'asc' ? ArrowUp : ArrowDown;
  return (
    <th
      scope="col"
      className="px-1 py-1.5 text-left font-medium"
      aria-sort={active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}
    >
      <button
        type="button"
        onClick={() => onSort(column.sortKey!)}
        className="inline-flex items-center gap-1.5 rounded-md px-1.5 py-1.5 text-left hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        {column.label}
        <Icon className={active ? 'size-3.5' : 'size-3.5 opacity-40'} aria-hidden="true" />
      </button>
    </th>
  );
}

/** A row offers the actions it has a handler for: My Studies all but Request Ownership, Shared Studies View, Info and that. */
export interface StudyRowHandlers {
  onInfo: (study: StudyListItem) => void;
  onShare?: (study: StudyListItem) => void;
  onDelete?: (study: StudyListItem) => void;
  onDownload?: (study: StudyListItem) => void;
  onTransfer?: (study: StudyListItem) => void;
  onRequestOwnership?: (study: StudyListItem) => void;
  onAccess?: (study: StudyListItem) => void;
}

/** Who shared a study of the Shared Studies tab. */
export interface SharedBy {
  name: string | null;
  email: string;
}

function NA() {
  return <span className="text-muted-foreground">N/A</span>;
}

function StudyRow({
  study,
  handlers,
  sharedBy,
}: {
  study: StudyListItem;
  handlers: StudyRowHandlers;
  sharedBy: SharedBy | null | undefined;
}) {
  const m = study.metadata;
  const patientName = patientDisplayName(study);
  const process = study.status.process;
  return (
    <tr className="border-t align-middle hover:bg-muted/40">
      <td className="max-w-64 px-2 py-2.5 font-medium">
        <span className="flex items-center gap-3">
          {/* Rendered on the server from the study (a placeholder when it has no image). */}
          <img
            src={`/api/studies/${study.id}/thumbnail`}
            alt=""
            loading="lazy"
            width={40}
            height={40}
            className="size-10 shrink-0 rounded bg-slate-900 object-contain"
          />
          {/* Words break only when one alone is wider than the column (DICOM caps them at 64 characters). */}
          <span className="line-clamp-2 break-words" title={m.studyDescription ?? undefined}>
            {m.studyDescription || <NA />}
          </span>
        </span>
      </td>
      <td className="max-w-48 px-2 py-2.5">
        <span className="line-clamp-2 break-words" title={patientName || undefined}>
          {patientName || <NA />}
        </span>
      </td>
      {sharedBy !== undefined && (
        <td className="min-w-36 max-w-56 px-2 py-2.5">
          {sharedBy ? (
            <span className="grid min-w-0">
              <span className="truncate" title={sharedBy.name ?? sharedBy.email}>
                {sharedBy.name || sharedBy.email}
              </span>
              {sharedBy.name && (
                <span className="truncate text-xs text-muted-foreground" title={sharedBy.email}>
                  {sharedBy.email}
                </span>
              )}
            </span>
          ) : (
            <NA />
          )}
        </td>
      )}
      <td className="px-2 py-2.5">
        <span className="inline-flex items-center gap-1">
          {m.modality || <NA />}
          <Button
            variant="ghost"
            size="icon"
            className="size-7"
            aria-label="Study information"
            onClick={() => handlers.onInfo(study)}
          >
            <Info aria-hidden="true" />
          </Button>
        </span>
      </td>
      <td className="whitespace-nowrap px-2 py-2.5">{formatDate(study.createdAt)}</td>
      <td className="whitespace-nowrap px-2 py-2.5">{formatDate(m.studyDate)}</td>
      <td className="whitespace-nowrap px-2 py-2.5">{formatDate(study.latestCompletionDate)}</td>
      <td className="px-2 py-2.5">
        {/* Analyses are ordered for one's own studies; a recipient only views. */}
        {process.value === 'completed' && sharedBy === undefined ? (
          <Button asChild size="sm" variant="outline">
            <Link to={analysisHref(study)}>Get Analysis</Link>
          </Button>
        ) : (
          <span className="capitalize text-muted-foreground">{process.value}</span>
        )}
      </td>
      <td className="px-2 py-2.5">
        <div className="flex items-center gap-1">
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
              {process.value === 'completed' && sharedBy === undefined && (
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
              {handlers.onDownload && (
                <DropdownMenuItem onSelect={() => handlers.onDownload?.(study)}>
                  <Download aria-hidden="true" /> Download
                </DropdownMenuItem>
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
      </td>
    </tr>
  );
}

export function StudiesTable({
  studies,
  sort,
  onSort,
  handlers,
  caption = 'My studies',
  sharedBy,
}: {
  studies: StudyListItem[];
  sort: StudySort;
  onSort: (key: StudySortKey) => void;
  handlers: StudyRowHandlers;
  caption?: string;
  /** Shared Studies: who shared each study, by study id (adds the Shared By column). */
  sharedBy?: ReadonlyMap<string, SharedBy>;
}) {
  const columns = sharedBy ? COLUMNS : COLUMNS.filter((c) => c.label !== 'Shared By');
  return (
    <div className="relative overflow-x-auto rounded-lg border bg-card shadow-sm">
      <table className="w-full min-w-[50rem] text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-muted/60 text-muted-foreground">
          <tr>
            {columns.map((c) => (
              <SortHeader key={c.label} column={c} sort={sort} onSort={onSort} />
            ))}
          </tr>
        </thead>
        <tbody>
          {studies.map((study) => (
            <StudyRow
              key={study.id}
              study={study}
              handlers={handlers}
              sharedBy={sharedBy ? (sharedBy.get(study.id) ?? null) : undefined}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}
