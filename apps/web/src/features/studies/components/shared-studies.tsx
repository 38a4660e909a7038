import type { StudyListItem } from '@mi/contracts/studies';
import { RefreshCw, Share2 } from 'lucide-react';
import { useMemo, useState } from 'react';
import { EmptyState } from '@/components/empty-state';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useSharedStudies } from '../api/get-shared-studies';
import { useRequestOwnership } from '../api/ownership';
import { useListPage } from '../hooks/use-list-page';
import {
  DEFAULT_SORT,
  EMPTY_FILTER,
  distinctModalities,
  filterStudies,
  nextSort,
  sortStudies,
  type StudyFilter,
  type StudySort,
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
  const [filter, setFilter] = useState<StudyFilter>(EMPTY_FILTER);
  const [sort, setSort] = useState<StudySort>(DEFAULT_SORT);
  const [infoStudy, setInfoStudy] = useState<StudyListItem | null>(null);
  const [page, setPage] = useListPage([filter, sort]);

  const items = shared.data;
  const studies = useMemo(() => (items ?? []).map((item) => item.study), [items]);
  const sharedBy = useMemo(
    () => new Map<string, SharedBy>((items ?? []).map((item) => [item.study.id, item.owner])),
    [items],
  );
  const modalities = useMemo(() => distinctModalities(studies), [studies]);
  const filtered = useMemo(() => filterStudies(studies, filter), [studies, filter]);
  const rows = useMemo(() => sortStudies(filtered, sort), [filtered, sort]);

  const request = (study: StudyListItem) =>
    requestOwnership.mutate(study.id, {
      onSuccess: (res) => toast({ title: 'Ownership Request Submitted', description: res.message }),
      onError: (err) => toastError(errorMessage(err)),
    });

  let body;
  if (shared.isPending) {
    body = (
      <div className="flex justify-center py-16">
        <Spinner className="size-6" label="Loading shared studies" />
      </div>
    );
  } else if (shared.isError) {
    body = (
      <Alert variant="destructive">
        <div className="grid gap-2">
          <AlertTitle>Error loading shared studies.</AlertTitle>
          <AlertDescription>{errorMessage(shared.error)}</AlertDescription>
          <Button variant="outline" size="sm" className="w-fit" onClick={() => void shared.refetch()}>
            <RefreshCw aria-hidden="true" /> Try again
          </Button>
        </div>
      </Alert>
    );
  } else if (rows.length === 0) {
    body = (
      <EmptyState icon={Share2} title="No shared studies found">
        {studies.length
          ? 'No study matches these filters.'
          : 'Studies that other people share with you appear here.'}
      </EmptyState>
    );
  } else {
    body = (
      <StudiesList
        studies={rows}
        sort={sort}
        onSort={(key) => setSort((s) => nextSort(s, key))}
        onSortChange={setSort}
        page={page}
        onPageChange={setPage}
        caption="Studies shared with you"
        sharedBy={sharedBy}
        handlers={{ onInfo: setInfoStudy, onRequestOwnership: request }}
      />
    );
  }

  return (
    <div className="grid gap-4">
      <StudyFilterBar filter={filter} modalities={modalities} onChange={setFilter} />
      {body}
      <StudyInfoDialog study={infoStudy} onClose={() => setInfoStudy(null)} />
      <BusyOverlay message={requestOwnership.isPending ? 'Requesting ownership, please wait...' : null} />
    </div>
  );
}
