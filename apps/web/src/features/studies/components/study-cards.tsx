import type { StudyListItem } from '@mi/contracts/studies';
import { Eye, FileImage, FlaskConical } from 'lucide-react';
import { useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import { EmptyState } from '@/components/empty-state';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import {
  analysisHref,
  distinctModalities,
  EMPTY_FILTER,
  filterStudies,
  patientDisplayName,
  viewerHref,
} from '../utils/study-list';
import { ModalitySelect, SearchInput } from './study-filter-bar';
import { DeidentifiedBadge } from './study-actions';
import { useListPage } from '../hooks/use-list-page';
import { pageOf, scrollToListTop, StudiesPager, STUDIES_PAGE_SIZE } from './studies-pager';

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

/** The Dashboard's studies: search, modality filter and a grid of study cards, a page at a time. */
export function StudyCards({
  studies,
  isPending,
  error,
}: {
  studies: StudyListItem[] | undefined;
  isPending: boolean;
  error: unknown;
}) {
  const [search, setSearch] = useState('');
  const [modality, setModality] = useState('all');
  const modalities = useMemo(() => distinctModalities(studies ?? []), [studies]);
  const shown = useMemo(
    () => filterStudies(studies ?? [], { ...EMPTY_FILTER, search, modality }),
    [studies, search, modality],
  );
  const [page, setPage] = useListPage([search, modality]);
  const paged = useMemo(() => pageOf(shown, page), [shown, page]);
  const top = useRef<HTMLUListElement>(null);

  return (
    <section aria-labelledby="dashboard-studies" className="grid gap-4">
      <h2 id="dashboard-studies" className="text-lg font-semibold">
        Your Studies
      </h2>
      <div className="flex flex-col gap-2 sm:flex-row" role="search" aria-label="Filter studies">
        <SearchInput value={search} onChange={setSearch} />
        <ModalitySelect value={modality} modalities={modalities} onChange={setModality} />
      </div>
      {isPending ? (
        <div className="flex justify-center py-12">
          <Spinner className="size-6" label="Loading studies" />
        </div>
      ) : error ? (
        <p className="text-sm text-destructive">{errorMessage(error)}</p>
      ) : shown.length === 0 ? (
        <EmptyState icon={FileImage} title="No studies found" />
      ) : (
        <>
          <ul
            ref={top}
            aria-label="Studies"
            className="grid grid-cols-[repeat(auto-fill,minmax(min(100%,15rem),1fr))] gap-4"
          >
            {paged.rows.map((study) => (
              <li key={study.id} className="grid min-w-0">
                <StudyCard study={study} />
              </li>
            ))}
          </ul>
          <StudiesPager
            page={paged.page}
            pageCount={paged.pageCount}
            pageSize={STUDIES_PAGE_SIZE}
            total={shown.length}
            onPage={(next) => {
              setPage(next);
              scrollToListTop(top.current);
            }}
          />
        </>
      )}
    </section>
  );
}
