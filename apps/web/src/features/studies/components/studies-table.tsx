import type { StudyListItem } from '@mi/contracts/studies';
import { ArrowDown, ArrowUp, ArrowUpDown, Download, Eye, Info, MoreHorizontal, Trash2 } from 'lucide-react';
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
  patientDisplayName,
  viewerHref,
  type StudySort,
  type StudySortKey,
} from '../utils/study-list';

interface Column {
  label: string;
  sortKey?: StudySortKey;
}

/** The Studies list's columns and their sort keys. */
const COLUMNS: Column[] = [
  { label: 'Study Description', sortKey: 'id' },
  { label: 'Patient Name', sortKey: 'patientName' },
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

export interface StudyRowHandlers {
  onInfo: (study: StudyListItem) => void;
  onDelete: (study: StudyListItem) => void;
  onDownload: (study: StudyListItem) => void;
}

function NA() {
  return <span className="text-muted-foreground">N/A</span>;
}

function StudyRow({ study, handlers }: { study: StudyListItem; handlers: StudyRowHandlers }) {
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
        {process.value === 'completed' ? (
          <Button asChild size="sm" variant="outline">
            <Link to={analysisHref(study)}>Get Analysis</Link>
          </Button>
        ) : (
          <span className="capitalize text-muted-foreground">{process.value}</span>
        )}
      </td>
      <td className="px-2 py-2.5">
        <div className="flex items-center gap-1">
          <Button
            variant="ghost"
            size="icon"
            className="size-8 text-destructive hover:bg-destructive/10 hover:text-destructive"
            aria-label="Delete study"
            onClick={() => handlers.onDelete(study)}
          >
            <Trash2 aria-hidden="true" />
          </Button>
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
              <DropdownMenuItem onSelect={() => handlers.onDownload(study)}>
                <Download aria-hidden="true" /> Download
              </DropdownMenuItem>
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
}: {
  studies: StudyListItem[];
  sort: StudySort;
  onSort: (key: StudySortKey) => void;
  handlers: StudyRowHandlers;
}) {
  return (
    <div className="overflow-x-auto rounded-lg border bg-card shadow-sm">
      <table className="w-full min-w-[50rem] text-sm">
        <caption className="sr-only">My studies</caption>
        <thead className="bg-muted/60 text-muted-foreground">
          <tr>
            {COLUMNS.map((c) => (
              <SortHeader key={c.label} column={c} sort={sort} onSort={onSort} />
            ))}
          </tr>
        </thead>
        <tbody>
          {studies.map((study) => (
            <StudyRow key={study.id} study={study} handlers={handlers} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
