import type { Study, StudyListItem } from '@mi/contracts/studies';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { formatDate } from '@/lib/format';
import { useStudy } from '../api/get-study';
import { patientDisplayName } from '../utils/study-list';

function orNA(value: string | null | undefined): string {
  return value?.trim() ? value : 'N/A';
}

/**
 * The name from the list, then the ID, birth date and sex, which the list leaves out and the study's
 * own read brings (null while it is on its way).
 */
function patientInformation(study: StudyListItem, details: Study | undefined, failed: boolean): string {
  const m = details?.metadata;
  const parts = [
    patientDisplayName(study),
    m?.patientId && `ID ${m.patientId}`,
    m?.patientBirthDate && `Born ${formatDate(m.patientBirthDate) || m.patientBirthDate}`,
    m?.patientSex && `Sex ${m.patientSex}`,
  ].filter(Boolean);
  if (!details) parts.push(failed ? '(other details could not be loaded)' : 'loading details…');
  return parts.length ? parts.join(', ') : 'N/A';
}

/** The 'Study Information' dialog: every missing value reads 'N/A'. Text from the files is shown as text. */
export function StudyInfoDialog({ study, onClose }: { study: StudyListItem | null; onClose: () => void }) {
  const details = useStudy(study?.id ?? null);
  const loaded = details.data?.id === study?.id ? details.data : undefined;
  const rows: [string, string][] = study
    ? [
        ['Study ID', orNA(study.id)],
        ['Instance ID', orNA(study.studyId)],
        ['Study Description', orNA(study.metadata.studyDescription)],
        ['Location', orNA(study.metadata.location)],
        ['Patient Information', patientInformation(study, loaded, details.isError)],
        ['Modality', orNA(study.metadata.modality)],
        ['Study Date', orNA(formatDate(study.metadata.studyDate))],
        ['Upload Date', orNA(formatDate(study.createdAt))],
      ]
    : [];
  return (
    <Dialog open={study !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Study Information</DialogTitle>
          <DialogDescription className="sr-only">Details read from the study's files.</DialogDescription>
        </DialogHeader>
        <dl className="grid grid-cols-[minmax(0,1fr)] gap-3 text-sm sm:grid-cols-[10rem_minmax(0,1fr)] sm:gap-x-4">
          {rows.map(([term, value]) => (
            <div key={term} className="contents">
              <dt className="font-medium text-muted-foreground">{term}</dt>
              <dd className="break-words">{value}</dd>
            </div>
          ))}
        </dl>
      </DialogContent>
    </Dialog>
  );
}
