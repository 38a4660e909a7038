import type { StudyListItem } from '@mi/contracts/studies';
import { SortSelect } from '@/components/sort-controls';
import { useMediaQuery } from '@/hooks/use-media-query';
import type { StudySort, StudySortKey } from '../utils/study-list';
import { StudiesTable } from './studies-table';
import type { SharedBy, StudyRowHandlers } from './study-actions';
import { StudyCardList } from './study-card-list';

const SORT_COLUMNS: Array<{ key: StudySortKey; label: string; kind: 'text' | 'date' }> = [
  { key: 'uploadDate', label: 'Upload Date', kind: 'date' },
  { key: 'studyDate', label: 'Study Date', kind: 'date' },
  { key: 'latestCompletionDate', label: 'Latest Completion', kind: 'date' },
  { key: 'id', label: 'Study Description', kind: 'text' },
  { key: 'patientName', label: 'Patient Name', kind: 'text' },
  { key: 'type', label: 'Modality', kind: 'text' },
];

/**
 * My Studies and Shared Studies: the sortable table where it fits beside the sidebar (1280 px and
 * wider, nine columns with Shared By), otherwise one card per study with a sort select, so that
 * no screen scrolls sideways.
 */
export function StudiesList({
  studies,
  sort,
  onSort,
  onSortChange,
  handlers,
  caption = 'My studies',
  sharedBy,
}: {
  studies: StudyListItem[];
  sort: StudySort;
  /** A column heading was clicked. */
  onSort: (key: StudySortKey) => void;
  /** The sort select chose a column and a direction. */
  onSortChange: (sort: StudySort) => void;
  handlers: StudyRowHandlers;
  caption?: string;
  sharedBy?: ReadonlyMap<string, SharedBy>;
}) {
  const wide = useMediaQuery('(min-width: 1280px)');
  if (wide) {
    return (
      <StudiesTable
        studies={studies}
        sort={sort}
        onSort={onSort}
        handlers={handlers}
        caption={caption}
        sharedBy={sharedBy}
      />
    );
  }
  return (
    <div className="grid gap-3">
      <SortSelect
        columns={SORT_COLUMNS}
        sort={{ key: sort.key, dir: sort.direction }}
        onSort={(next) => onSortChange({ key: next.key, direction: next.dir })}
      />
      <StudyCardList studies={studies} handlers={handlers} label={caption} sharedBy={sharedBy} />
    </div>
  );
}
