import type { StudyListItem } from '@mi/contracts/studies';
import { useRef } from 'react';
import { ListLayout } from '@/components/list/list-layout';
import { ListPager, scrollToListTop } from '@/components/list/list-pager';
import { SortSelect } from '@/components/list/sort-controls';
import type { ListState } from '@/components/list/use-list';
import type { StudyFilter, StudySortKey } from '../utils/study-list';
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
 * no screen scrolls sideways. One page of `list` is rendered, with the pager below it when there
 * is more than one page.
 */
export function StudiesList({
  list,
  handlers,
  caption = 'My studies',
  sharedBy,
}: {
  list: ListState<StudyListItem, StudySortKey, StudyFilter>;
  handlers: StudyRowHandlers;
  caption?: string;
  sharedBy?: ReadonlyMap<string, SharedBy>;
}) {
  const top = useRef<HTMLDivElement>(null);
  const pager = (
    <ListPager
      page={list.page}
      pageCount={list.pageCount}
      pageSize={list.pageSize}
      total={list.matching.length}
      onPage={(next) => {
        list.setPage(next);
        scrollToListTop(top.current);
      }}
      noun="Studies"
      label="Pages of studies"
    />
  );
  return (
    <div ref={top} className="grid gap-3">
      <ListLayout
        minWidth="(min-width: 1280px)"
        table={() => (
          <StudiesTable
            studies={list.rows}
            sort={list.sort}
            onSort={list.sortOn}
            handlers={handlers}
            caption={caption}
            sharedBy={sharedBy}
          />
        )}
        cards={() => (
          <>
            <SortSelect columns={SORT_COLUMNS} sort={list.sort} onSort={list.setSort} />
            <StudyCardList studies={list.rows} handlers={handlers} label={caption} sharedBy={sharedBy} />
          </>
        )}
      />
      {pager}
    </div>
  );
}
