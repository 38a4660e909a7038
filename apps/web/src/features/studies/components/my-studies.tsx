import type { StudyListItem } from '@mi/contracts/studies';
import { FileImage, QrCode, X } from 'lucide-react';
import { useMemo, useState, type ReactNode } from 'react';
import { EmptyState } from '@/components/empty-state';
import { listStatus, ListStatus } from '@/components/list/list-status';
import { useList } from '@/components/list/use-list';
import { Button } from '@/components/ui/button';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useDeleteStudy } from '../api/delete-study';
import { useDownloadStudy } from '../api/download-study';
import { useUserStudies } from '../api/get-user-studies';
import { useTransferOwnership } from '../api/ownership';
import {
  DEFAULT_SORT,
  EMPTY_FILTER,
  distinctModalities,
  filterStudies,
  sortStudies,
  type StudyFilter,
  type StudySortKey,
} from '../utils/study-list';
import { AccessReceiptsDialog } from './access-receipts-dialog';
import { BusyOverlay } from './busy-overlay';
import { DeleteStudyDialog } from './delete-study-dialog';
import { DeidentifyDialog, type DeidentifyMode } from './deidentify-dialog';
import { downloadDeidentified, useMakeDeidentifiedCopy } from '../api/deidentify';
import { ShareStudyDialog } from './share-study-dialog';
import { StudiesList } from './studies-list';
import { StudyFilterBar } from './study-filter-bar';
import { StudyInfoDialog } from './study-info-dialog';
import { TransferOwnershipDialog } from './transfer-ownership-dialog';

/** The My Studies tab of the Studies list: filter bar, sortable table (a page at a time) and row actions. */
export function MyStudies({
  userId,
  newOnly,
  processing,
  sharingAllowed,
  onShareByLink,
  studyLinks,
}: {
  userId: string;
  newOnly: boolean;
  /** Uploads still being processed: they join the list when done. */
  processing: number;
  /** The user's Share Medical Records setting (the Share dialog says how to turn it on). */
  sharingAllowed: boolean;
  /** 'Share by link / QR' for one study or the selection (the dialog is composed in by the route). */
  onShareByLink?: (studies: StudyListItem[]) => void;
  /** A study's links, shown in its Access & activity. */
  studyLinks?: (study: StudyListItem) => ReactNode;
}) {
  const studies = useUserStudies(userId);
  const deleteStudy = useDeleteStudy();
  const downloadStudy = useDownloadStudy();
  const [infoStudy, setInfoStudy] = useState<StudyListItem | null>(null);
  const [deleting, setDeleting] = useState<StudyListItem | null>(null);
  const [sharing, setSharing] = useState<StudyListItem | null>(null);
  const [transferring, setTransferring] = useState<StudyListItem | null>(null);
  const [receipts, setReceipts] = useState<StudyListItem | null>(null);
  const [deidentifying, setDeidentifying] = useState<{ study: StudyListItem; mode: DeidentifyMode } | null>(
    null,
  );
  const makeCopy = useMakeDeidentifiedCopy();
  const transferOwnership = useTransferOwnership(userId);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const all = studies.data;
  const list = useList<StudyListItem, StudySortKey, StudyFilter>({
    rows: all,
    sort: DEFAULT_SORT,
    sortBy: sortStudies,
    filters: EMPTY_FILTER,
    filterRows: (rows, _search, filter) => filterStudies(rows, { ...filter, newOnly }),
    resetOn: [newOnly],
  });
  const rows = list.matching;
  const modalities = useMemo(() => distinctModalities(all ?? []), [all]);

  // Only studies still listed and shown count as selected (a deleted or filtered-out one drops out).
  const selectedStudies = useMemo(() => rows.filter((s) => selected.has(s.id)), [rows, selected]);
  const selection = onShareByLink
    ? {
        selected,
        toggle: (studyId: string, on: boolean) =>
          setSelected((prev) => {
            const next = new Set(prev);
            if (on) next.add(studyId);
            else next.delete(studyId);
            return next;
          }),
        toggleAll: (on: boolean, shown: readonly StudyListItem[]) =>
          setSelected((prev) => {
            const next = new Set(prev);
            for (const s of shown) {
              if (on) next.add(s.id);
              else next.delete(s.id);
            }
            return next;
          }),
      }
    : undefined;

  const confirmDelete = (study: StudyListItem) => {
    setDeleting(null);
    deleteStudy.mutate(
      { userId, studyId: study.id },
      {
        onSuccess: () =>
          toast({ title: 'Study Deleted', description: 'The study has been successfully deleted.' }),
        onError: () =>
          toast({
            title: 'Error',
            description: 'Error deleting study. Please try again.',
            variant: 'destructive',
          }),
      },
    );
  };

  const download = (study: StudyListItem) =>
    downloadStudy.mutate(study.id, {
      onSuccess: () =>
        toast({ title: 'Downloading Study', description: 'Your download will begin shortly...' }),
      onError: (err) =>
        toast({
          title: 'Download Error',
          description: errorMessage(err, 'There was an error downloading the study. Please try again.'),
          variant: 'destructive',
        }),
    });

  const confirmDeidentify = (study: StudyListItem, mode: DeidentifyMode) => {
    if (mode === 'download') {
      setDeidentifying(null);
      downloadDeidentified(study.id);
      toast({ title: 'Downloading de-identified study', description: 'Your download will begin shortly...' });
      return;
    }
    makeCopy.mutate(study.id, {
      onSuccess: () => {
        setDeidentifying(null);
        toast({
          title: 'De-identified copy on its way',
          description: 'It will appear in My Studies, marked De-identified, when it is ready.',
        });
      },
      onError: (err) => toastError(errorMessage(err)),
    });
  };

  const transfer = (study: StudyListItem, requesterEmail: string) =>
    transferOwnership.mutate(
      { studyId: study.id, requesterEmail },
      {
        onSuccess: (res) => {
          setTransferring(null);
          toast({ title: 'Ownership Transferred', description: res.message });
        },
        onError: (err) => toastError(errorMessage(err)),
      },
    );

  const body =
    listStatus(studies, rows.length) !== null ? (
      <ListStatus
        query={studies}
        count={rows.length}
        loading="Loading studies"
        error="Your studies could not be loaded"
        retryLabel="Try again"
        empty={
          <EmptyState icon={FileImage} title="No studies found">
            {all?.length
              ? 'No study matches these filters.'
              : processing > 0
                ? 'Your upload is being processed; it appears here once it is ready.'
                : 'Upload a study from files, a folder, a ZIP archive or a CD/DVD; it appears here once processed.'}
          </EmptyState>
        }
      />
    ) : (
      <StudiesList
        list={list}
        handlers={{
          onInfo: setInfoStudy,
          onShare: setSharing,
          onDelete: setDeleting,
          onDownload: download,
          onTransfer: setTransferring,
          onAccess: setReceipts,
          onDeidentify: (study, mode) => setDeidentifying({ study, mode }),
          onShareByLink: onShareByLink && ((study) => onShareByLink([study])),
          selection,
        }}
      />
    );

  return (
    <div className="grid gap-4">
      <StudyFilterBar filter={list.filters} modalities={modalities} onChange={list.setFilters} />
      {onShareByLink && selectedStudies.length > 0 && (
        <div
          role="region"
          aria-label="Selected studies"
          className="flex flex-wrap items-center gap-2 rounded-lg border bg-accent px-3 py-2 text-sm"
        >
          <span className="mr-auto font-medium" aria-live="polite">
            {selectedStudies.length} {selectedStudies.length === 1 ? 'study' : 'studies'} selected
          </span>
          <Button size="sm" onClick={() => onShareByLink(selectedStudies)}>
            <QrCode aria-hidden="true" /> Share by link / QR
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setSelected(new Set())}>
            <X aria-hidden="true" /> Clear selection
          </Button>
        </div>
      )}
      {body}
      <StudyInfoDialog study={infoStudy} onClose={() => setInfoStudy(null)} />
      <DeleteStudyDialog study={deleting} onCancel={() => setDeleting(null)} onConfirm={confirmDelete} />
      <DeidentifyDialog
        target={deidentifying}
        busy={makeCopy.isPending}
        onCancel={() => setDeidentifying(null)}
        onConfirm={confirmDeidentify}
      />
      <ShareStudyDialog
        study={sharing}
        userId={userId}
        sharingAllowed={sharingAllowed}
        onClose={() => setSharing(null)}
      />
      <TransferOwnershipDialog
        study={transferring}
        pending={transferOwnership.isPending}
        onCancel={() => setTransferring(null)}
        onTransfer={transfer}
      />
      <AccessReceiptsDialog study={receipts} onClose={() => setReceipts(null)} links={studyLinks} />
      <BusyOverlay
        message={
          deleteStudy.isPending
            ? 'Deleting study, please wait...'
            : downloadStudy.isPending
              ? 'Preparing download, please wait...'
              : transferOwnership.isPending
                ? 'Transferring ownership, please wait...'
                : null
        }
      />
    </div>
  );
}
