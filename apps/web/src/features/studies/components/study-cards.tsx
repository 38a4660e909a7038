import type { StudyListItem } from '@mi/contracts/studies';
import { Eye, FileImage, FlaskConical } from 'lucide-react';
import { useMemo, useRef } from 'react';
import { Link } from 'react-router';
import { EmptyState } from '@/components/empty-state';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { ListPager, scrollToListTop } from '@/components/list/list-pager';
import { ListStatus, type ListQuery } from '@/components/list/list-status';
import { useList } from '@/components/list/use-list';
import { formatDate } from '@/lib/format';
import {
  analysisHref,
  distinctModalities,
  DEFAULT_SORT,
  EMPTY_FILTER,
  filterStudies,
  patientDisplayName,
  viewerHref,
  type StudyFilter,
  type StudySortKey,
} from '../utils/study-list';
import { ModalitySelect, SearchInput } from './study-filter-bar';
import { DeidentifiedBadge } from './study-actions';

function StudyCard({ study }: { study: StudyListItem }) {
  const m = study.metadata;
  return (
    <Card className="flex min-w-0 flex-col gap-3 p-4">
      {/* Rendered on the server from the study (a placeholder when it has no image). */}
      <img
        src={`/api/studies/${study.id}/thumbnail`}
        alt=""
        loading="lazy"
        width={256}
        height={256}
        className="h-40 w-full rounded-md bg-slate-900 object-contain"
      />
      <div className="min-w-0">
        <h3 className="font-medium [overflow-wrap:anywhere]">
          {m.studyDescription || 'N/A'}
          {study.deidentified && <DeidentifiedBadge />}
        </h3>
        <p className="text-sm text-muted-foreground [overflow-wrap:anywhere]">
          {patientDisplayName(study) || 'N/A'}
        </p>
      </div>
      <dl className="grid grid-cols-2 gap-2 text-sm">
        <div>
          <dt className="text-muted-foreground">Upload Date</dt>
          <dd>{formatDate(study.createdAt)}</dd>
        </div>
        <div>
          <dt className="text-muted-foreground">Type</dt>
          <dd>{m.modality || 'N/A'}</dd>
        </div>
      </dl>
      <div className="mt-auto flex flex-wrap gap-2">
        <Button asChild size="sm" variant="outline">
          <a href={viewerHref(study)} target="_blank" rel="noopener noreferrer">
            <Eye aria-hidden="true" /> View Study
          </a>
        </Button>
        {study.status.process.value === 'completed' && (
          <Button asChild size="sm">
            <Link to={analysisHref(study)}>
              <FlaskConical aria-hidden="true" /> Get Analysis
            </Link>
          </Button>
        )}
      </div>
    </Card>
  );
}

/**
 * The Dashboard's studies: search, modality filter and a grid of study cards, a page at a time.
 */
export function StudyCards({ query }: { query: ListQuery & { data: StudyListItem[] | undefined } }) {
  const studies = query.data;
  const list = useList<StudyListItem, StudySortKey, StudyFilter>({
    rows: studies,
    sort: DEFAULT_SORT,
    // The server's order (newest upload first): the cards have no sort of their own.
    sortBy: (rows) => [...rows],
    filters: EMPTY_FILTER,
    filterRows: (rows, _search, filter) => filterStudies(rows, filter),
  });
  const modalities = useMemo(() => distinctModalities(studies ?? []), [studies]);
  const top = useRef<HTMLUListElement>(null);

  return (
    <section aria-labelledby="dashboard-studies" className="grid gap-4">
      <h2 id="dashboard-studies" className="text-lg font-semibold">
        Your Studies
      </h2>
      <div className="flex flex-col gap-2 sm:flex-row" role="search" aria-label="Filter studies">
        <SearchInput value={list.filters.search} onChange={(search) => list.setFilter('search', search)} />
        <ModalitySelect
          value={list.filters.modality}
          modalities={modalities}
          onChange={(modality) => list.setFilter('modality', modality)}
        />
      </div>
      <ListStatus
        query={query}
        count={list.matching.length}
        loading="Loading studies"
        error="Your studies could not be loaded"
        empty={<EmptyState icon={FileImage} title="No studies found" />}
      />
      {list.rows.length > 0 && !query.isError && (
        <>
          <ul
            ref={top}
            aria-label="Studies"
            className="grid grid-cols-[repeat(auto-fill,minmax(min(100%,15rem),1fr))] gap-4"
          >
            {list.rows.map((study) => (
              <li key={study.id} className="grid min-w-0">
                <StudyCard study={study} />
              </li>
            ))}
          </ul>
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
        </>
      )}
    </section>
  );
}
