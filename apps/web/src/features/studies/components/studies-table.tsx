import type { StudyListItem } from '@mi/contracts/studies';
import { ArrowDown, ArrowUp, ArrowUpDown } from 'lucide-react';
import { formatDate } from '@/lib/format';
import { patientDisplayName, type StudySort, type StudySortKey } from '../utils/study-list';
import { Checkbox } from '@/components/ui/checkbox';
import {
  DeidentifiedBadge,
  NA,
  StudyActions,
  StudySelectBox,
  StudyInfoButton,
  StudyStatus,
  type SharedBy,
  type StudyRowHandlers,
} from './study-actions';

interface Column {
  label: string;
  sortKey?: StudySortKey;
  /** Kept in view at the table's right edge (STICKY_HEAD). */
  sticky?: boolean;
}

/**
 * The Actions column stays in view at the table's right edge: where a font or a long value makes the
 * table wider than the space beside the sidebar, the table scrolls under it rather than hide the
 * only way to View or Download. Its background is opaque, the header's and the rows' own colours.
 */
const STICKY_HEAD = 'sticky right-0 bg-[color-mix(in_srgb,var(--color-muted)_60%,var(--color-card))]';
const STICKY_CELL =
  'sticky right-0 bg-card group-hover:bg-[color-mix(in_srgb,var(--color-muted)_40%,var(--color-card))]';

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
  { label: 'Actions', sticky: true },
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
      <th scope="col" className={`px-1.5 py-3 text-left font-medium ${column.sticky ? STICKY_HEAD : ''}`}>
        {column.label}
      </th>
    );
  }
  const active = sort.key === column.sortKey;
  const Icon = !active ? ArrowUpDown : sort.dir === 'asc' ? ArrowUp : ArrowDown;
  return (
    <th
      scope="col"
      className="px-0.5 py-1.5 text-left font-medium"
      aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
    >
      <button
        type="button"
        onClick={() => onSort(column.sortKey!)}
        className="inline-flex items-center gap-0.5 rounded-md px-1 py-1.5 text-left hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        {column.label}
        <Icon className={active ? 'size-3.5' : 'size-3.5 opacity-40'} aria-hidden="true" />
      </button>
    </th>
  );
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
  return (
    <tr className="group border-t align-middle hover:bg-muted/40">
      {handlers.selection && (
        <td className="w-8 py-2.5 pl-3">
          <StudySelectBox study={study} selection={handlers.selection} />
        </td>
      )}
      <td className="max-w-56 px-1.5 py-2.5 font-medium">
        <span className="flex items-center gap-2">
          {/* Rendered on the server from the study (a placeholder when it has no image). */}
          <img
            src={`/api/studies/${study.id}/thumbnail`}
            alt=""
            loading="lazy"
            width={32}
            height={32}
            className="size-8 shrink-0 rounded bg-slate-900 object-contain"
          />
          {/* A long word (DICOM allows 64 characters) breaks rather than widen the table past its space. */}
          <span className="line-clamp-2 [overflow-wrap:anywhere]" title={m.studyDescription ?? undefined}>
            {m.studyDescription || <NA />}
            {study.deidentified && <DeidentifiedBadge />}
          </span>
        </span>
      </td>
      <td className="max-w-36 px-1.5 py-2.5">
        <span className="line-clamp-2 [overflow-wrap:anywhere]" title={patientName || undefined}>
          {patientName || <NA />}
        </span>
      </td>
      {sharedBy !== undefined && (
        <td className="max-w-44 px-1.5 py-2.5">
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
      <td className="px-1.5 py-2.5">
        <span className="inline-flex items-center gap-1">
          {m.modality || <NA />}
          <StudyInfoButton study={study} handlers={handlers} />
        </span>
      </td>
      <td className="whitespace-nowrap px-1.5 py-2.5">{formatDate(study.createdAt)}</td>
      <td className="whitespace-nowrap px-1.5 py-2.5">{formatDate(m.studyDate)}</td>
      <td className="whitespace-nowrap px-1.5 py-2.5">{formatDate(study.latestCompletionDate)}</td>
      <td className="px-1.5 py-2.5">
        <StudyStatus study={study} recipient={sharedBy !== undefined} />
      </td>
      <td className={`px-1.5 py-2.5 ${STICKY_CELL}`}>
        <StudyActions study={study} handlers={handlers} recipient={sharedBy !== undefined} />
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
      {/* Wide screens only (studies-list.tsx): its columns shrink to fit beside the sidebar at 1280 px. */}
      <table className="w-full text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-muted/60 text-muted-foreground">
          <tr>
            {handlers.selection && (
              <th scope="col" className="w-8 py-3 pl-3 text-left">
                <Checkbox
                  checked={
                    studies.length > 0 && studies.every((s) => handlers.selection!.selected.has(s.id))
                      ? true
                      : studies.some((s) => handlers.selection!.selected.has(s.id))
                        ? 'indeterminate'
                        : false
                  }
                  onCheckedChange={(checked) => handlers.selection!.toggleAll(checked === true, studies)}
                  aria-label="Select all studies shown"
                />
              </th>
            )}
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
