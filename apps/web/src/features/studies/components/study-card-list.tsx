import type { StudyListItem } from '@mi/contracts/studies';
import { Card } from '@/components/ui/card';
import { formatDate } from '@/lib/format';
import { patientDisplayName } from '../utils/study-list';
import {
  NA,
  StudyActions,
  StudyInfoButton,
  StudySelectBox,
  StudyStatus,
  type SharedBy,
  type StudyRowHandlers,
} from './study-actions';

function StudyListCard({
  study,
  handlers,
  sharedBy,
}: {
  study: StudyListItem;
  handlers: StudyRowHandlers;
  sharedBy: SharedBy | null | undefined;
}) {
  const m = study.metadata;
  const patientName = patientDisplayName(study);
  const recipient = sharedBy !== undefined;
  return (
    <Card className="grid min-w-0 gap-3 p-4">
      <div className="flex min-w-0 gap-3">
        {handlers.selection && (
          <div className="pt-0.5">
            <StudySelectBox study={study} selection={handlers.selection} />
          </div>
        )}
        {/* Rendered on the server from the study (a placeholder when it has no image). */}
        <img
          src={`/api/studies/${study.id}/thumbnail`}
          alt=""
          loading="lazy"
          width={64}
          height={64}
          className="size-16 shrink-0 rounded bg-slate-900 object-contain"
        />
        <div className="grid min-w-0 flex-1 content-start gap-0.5">
          <h3 className="font-medium [overflow-wrap:anywhere]">{m.studyDescription || <NA />}</h3>
          <p className="text-sm text-muted-foreground [overflow-wrap:anywhere]">{patientName || 'N/A'}</p>
          {sharedBy !== undefined && (
            <p className="text-sm [overflow-wrap:anywhere]">
              <span className="text-muted-foreground">Shared by </span>
              {sharedBy ? sharedBy.name || sharedBy.email : 'N/A'}
            </p>
          )}
        </div>
      </div>
      <dl className="grid grid-cols-2 gap-x-3 gap-y-2 text-sm">
        <div>
          <dt className="text-muted-foreground">Modality</dt>
          <dd>{m.modality || <NA />}</dd>
        </div>
        <div>
          <dt className="text-muted-foreground">Upload Date</dt>
          <dd>{formatDate(study.createdAt)}</dd>
        </div>
        <div>
          <dt className="text-muted-foreground">Study Date</dt>
          <dd>{formatDate(m.studyDate)}</dd>
        </div>
        <div>
          <dt className="text-muted-foreground">Latest Completion</dt>
          <dd>{formatDate(study.latestCompletionDate)}</dd>
        </div>
      </dl>
      <div className="flex flex-wrap items-center justify-between gap-2 border-t pt-3">
        <StudyStatus study={study} recipient={recipient} />
        <div className="flex items-center gap-1">
          <StudyInfoButton study={study} handlers={handlers} />
          <StudyActions study={study} handlers={handlers} recipient={recipient} />
        </div>
      </div>
    </Card>
  );
}

/**
 * The studies of My Studies and Shared Studies as cards, one column on a phone: thumbnail,
 * description, patient, dates, status and the same actions as the table's rows.
 */
export function StudyCardList({
  studies,
  handlers,
  label,
  sharedBy,
}: {
  studies: StudyListItem[];
  handlers: StudyRowHandlers;
  label: string;
  sharedBy?: ReadonlyMap<string, SharedBy>;
}) {
  return (
    <ul aria-label={label} className="grid gap-3 sm:grid-cols-2">
      {studies.map((study) => (
        <li key={study.id} className="grid min-w-0">
          <StudyListCard
            study={study}
            handlers={handlers}
            sharedBy={sharedBy ? (sharedBy.get(study.id) ?? null) : undefined}
          />
        </li>
      ))}
    </ul>
  );
}
