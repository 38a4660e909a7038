import type { StudyListItem } from '@mi/contracts/studies';
import { useMemo, useRef } from 'react';
import { SortSelect } from '@/components/sort-controls';
import { useMediaQuery } from '@/hooks/use-media-query';
import type { StudySort, StudySortKey } from '../utils/study-list';
import { StudiesTable } from './studies-table';
import type { SharedBy, StudyRowHandlers } from './study-actions';
import { StudyCardList } from './study-card-list';
import { pageOf, scrollToListTop, StudiesPager, STUDIES_PAGE_SIZE } from './studies-pager';

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
 * no screen scrolls sideways. `studies` is the whole sorted and filtered list; one page of
 * STUDIES_PAGE_SIZE is rendered, with the pager below it when there is more than one page.
 */
export function StudiesList({
  studies,
  sort,
  onSort,
  onSortChange,
  page,
  onPageChange,
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
  /** The page to show (0 is the first; past the end shows the last). */
  page: number;
  onPageChange: (page: number) => void;
  handlers: StudyRowHandlers;
  caption?: string;
  sharedBy?: ReadonlyMap<string, SharedBy>;
}) {
  const wide = useMediaQuery('(min-width: 1280px)');
  const top = useRef<HTMLDivElement>(null);
  const shown = useMemo(() => pageOf(studies, page), [studies, page]);
  const goTo = (next: number) => {
    onPageChange(next);
    scrollToListTop(top.current);
  };
  const pager = (
    <StudiesPager
      page={shown.page}
      pageCount={shown.pageCount}
      pageSize={STUDIES_PAGE_SIZE}
      total={studies.length}
      onPage={goTo}
    />
  );
  if (wide) {
    return (
      <div ref={top} className="grid gap-3">
        <StudiesTable
          studies={shown.rows}
          sort={sort}
          onSort={onSort}
          handlers={handlers}
          caption={caption}
          sharedBy={sharedBy}
        />
        {pager}
      </div>
    );
  }
  return (
    <div ref={top} className="grid gap-3">
      <SortSelect
        columns={SORT_COLUMNS}
        sort={{ key: sort.key, dir: sort.direction }}
        onSort={(next) => onSortChange({ key: next.key, direction: next.dir })}
      />
      <StudyCardList studies={shown.rows} handlers={handlers} label={caption} sharedBy={sharedBy} />
      {pager}
    </div>
  );
}
