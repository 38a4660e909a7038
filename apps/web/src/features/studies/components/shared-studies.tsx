import type { StudyListItem } from '@mi/contracts/studies';
import { Share2 } from 'lucide-react';
import { useMemo, useState } from 'react';
import { EmptyState } from '@/components/empty-state';
import { listStatus, ListStatus } from '@/components/list/list-status';
import { useList } from '@/components/list/use-list';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useSharedStudies } from '../api/get-shared-studies';
import { useRequestOwnership } from '../api/ownership';
import {
  DEFAULT_SORT,
  EMPTY_FILTER,
  distinctModalities,
  filterStudies,
  sortStudies,
  type StudyFilter,
  type StudySortKey,
} from '../utils/study-list';
import { BusyOverlay } from './busy-overlay';
import { StudiesList } from './studies-list';
import type { SharedBy } from './study-actions';
import { StudyFilterBar } from './study-filter-bar';
import { StudyInfoDialog } from './study-info-dialog';

/**
 * The Shared Studies tab: studies other people share with the user, in the same table with the same
 * filters and sorting, and who shared each. A recipient may view a study and ask for its ownership.
 */
export function SharedStudies({ userId }: { userId: string }) {
  const shared = useSharedStudies(userId);
  const requestOwnership = useRequestOwnership();
  const [infoStudy, setInfoStudy] = useState<StudyListItem | null>(null);

  const items = shared.data;
  const studies = useMemo(() => (items ?? []).map((item) => item.study), [items]);
  const sharedBy = useMemo(
    () => new Map<string, SharedBy>((items ?? []).map((item) => [item.study.id, item.owner])),
    [items],
  );
  const modalities = useMemo(() => distinctModalities(studies), [studies]);
  const list = useList<StudyListItem, StudySortKey, StudyFilter>({
    rows: studies,
    sort: DEFAULT_SORT,
    sortBy: sortStudies,
    filters: EMPTY_FILTER,
    filterRows: (rows, _search, filter) => filterStudies(rows, filter),
  });
  const rows = list.matching;

  const request = (study: StudyListItem) =>
    requestOwnership.mutate(study.id, {
      onSuccess: (res) => toast({ title: 'Ownership Request Submitted', description: res.message }),
      onError: (err) => toastError(errorMessage(err)),
    });

  const body =
    listStatus(shared, rows.length) !== null ? (
      <ListStatus
        query={shared}
        count={rows.length}
        loading="Loading shared studies"
        error="Error loading shared studies."
        retryLabel="Try again"
        empty={
          <EmptyState icon={Share2} title="No shared studies found">
            {studies.length
              ? 'No study matches these filters.'
              : 'Studies that other people share with you appear here.'}
          </EmptyState>
        }
      />
    ) : (
      <StudiesList
        list={list}
        caption="Studies shared with you"
        sharedBy={sharedBy}
        handlers={{ onInfo: setInfoStudy, onRequestOwnership: request }}
      />
    );

  return (
    <div className="grid gap-4">
      <StudyFilterBar filter={list.filters} modalities={modalities} onChange={list.setFilters} />
      {body}
      <StudyInfoDialog study={infoStudy} onClose={() => setInfoStudy(null)} />
      <BusyOverlay message={requestOwnership.isPending ? 'Requesting ownership, please wait...' : null} />
    </div>
  );
}
