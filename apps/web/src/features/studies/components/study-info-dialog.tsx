import type { StudyListItem } from '@mi/contracts/studies';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { formatDate, formatPersonName } from '@/lib/format';

function orNA(value: string | null | undefined): string {
  return value?.trim() ? value : 'N/A';
}

function patientInformation(study: StudyListItem): string {
  const m = study.metadata;
  const parts = [
    formatPersonName(m.patientName),
    m.patientId && `ID ${m.patientId}`,
    m.patientBirthDate && `Born ${formatDate(m.patientBirthDate) || m.patientBirthDate}`,
    m.patientSex && `Sex ${m.patientSex}`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'N/A';
}

/** Spec §2 'Study Information': every missing value reads 'N/A'. Text from the files is shown as text. */
export function StudyInfoDialog({ study, onClose }: { study: StudyListItem | null; onClose: () => void }) {
  const rows: [string, string][] = study
    ? [
        ['Study ID', orNA(study.id)],
        ['Instance ID', orNA(study.studyId)],
        ['Study Description', orNA(study.metadata.studyDescription)],
        ['Location', orNA(study.metadata.location)],
        ['Patient Information', patientInformation(study)],
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
