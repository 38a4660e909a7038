import type { Purchase } from '@mi/contracts/orders';
import { Upload } from 'lucide-react';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { uploadPath, withQuery, paths } from '@/config/paths';
import { useToast } from '@/hooks/use-toast';
import { errorMessage, isApiError } from '@/lib/api-client';
import { formatDate, formatPersonName } from '@/lib/format';
import { cn } from '@/lib/utils';
import { useAttachStudy, useDataNeed } from '../api/attach-study';
import { rateStudies, type StudyChoice } from '../utils/study-fit';
import { purchaseStatusLabel } from './order-status-badge';

/** Where the upload page's Go Back returns to: this page with this order's dialog open again. */
export function attachReturnPath(orderId: string): string {
  return withQuery(paths.servicesPurchased, { attach: orderId });
}

/**
 * 'Upload Required Data': what the order's service reads and why its study does not do, the
 * user's own studies with the ones that do not fit marked, and a way to upload a new one (the
 * upload page's Go Back returns here with the dialog open). The server checks the chosen study
 * again (422 with its reason) and that the order still waits for data (409).
 */
export function AttachStudyDialog({
  order,
  studies,
  onClose,
}: {
  order: Purchase;
  /** The user's processed studies; undefined while they load. */
  studies: StudyChoice[] | undefined;
  onClose: () => void;
}) {
  const need = useDataNeed(order.id);
  const attach = useAttachStudy();
  const { toast } = useToast();
  const [picked, setPicked] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const rated = useMemo(
    () => (need.data && studies ? rateStudies(studies, need.data.supportedModalities, order.studyId) : []),
    [need.data, studies, order.studyId],
  );
  const fitting = rated.filter((s) => s.problem === null).length;

  function submit() {
    setError(null);
    if (!picked) {
      setError('Please choose a study to attach.');
      return;
    }
    attach.mutate(
      { orderId: order.id, studyId: picked },
      {
        onSuccess: (res) => {
          toast({
            title: 'Study attached',
            description: `${order.service.name}: ${purchaseStatusLabel(res.orderStatus)}.`,
          });
          onClose();
        },
        onError: (err) =>
          setError(
            isApiError(err, 'CONFLICT')
              ? `${errorMessage(err)} The list shows the order as it is now.`
              : errorMessage(err),
          ),
      },
    );
  }

  return (
    <Dialog open onOpenChange={(open) => !open && !attach.isPending && onClose()}>
      <DialogContent className="max-w-xl">
        <DialogHeader>
          <DialogTitle>Upload Required Data</DialogTitle>
          <DialogDescription>
            {order.service.name} from {order.provider.name} cannot start with the study it was ordered for.
            Attach another of your studies, or upload one.
          </DialogDescription>
        </DialogHeader>
        {need.isPending && <p className="text-sm text-muted-foreground">Loading...</p>}
        {need.isError && (
          <Alert variant="destructive" role="alert">
            {errorMessage(need.error)}
          </Alert>
        )}
        {need.data && (
          <Alert variant="info">
            <Upload aria-hidden="true" />
            <div className="grid gap-1">
              <AlertTitle>{need.data.reason || 'The study is missing what this service needs.'}</AlertTitle>
              <AlertDescription>
                <p>Supported modalities: {need.data.supportedModalities.join(', ')}</p>
                {need.data.requiredData.length > 0 && (
                  <ul className="mt-1 list-disc pl-5">
                    {need.data.requiredData.map((d) => (
                      <li key={d}>{d}</li>
                    ))}
                  </ul>
                )}
              </AlertDescription>
            </div>
          </Alert>
        )}
        {need.data && (
          <fieldset className="grid min-w-0 gap-2" disabled={attach.isPending}>
            <legend className="mb-2 text-sm font-medium">
              Your studies{studies ? ` (${fitting} of ${rated.length} fit)` : ''}
            </legend>
            {!studies && <p className="text-sm text-muted-foreground">Loading...</p>}
            {studies && rated.length === 0 && (
              <p className="text-sm text-muted-foreground">You have no processed studies yet.</p>
            )}
            {rated.length > 0 && (
              <ul className="grid max-h-72 gap-2 overflow-y-auto pr-1" aria-label="Your studies">
                {rated.map((s) => (
                  <li key={s.id}>
                    <label
                      className={cn(
                        'flex cursor-pointer items-start gap-3 rounded-md border p-3 text-sm',
                        'has-[:checked]:border-primary has-[:checked]:bg-primary/5',
                        s.problem && 'cursor-not-allowed bg-muted/40 text-muted-foreground',
                      )}
                    >
                      <input
                        type="radio"
                        name="attach-study"
                        className="mt-1 size-4 shrink-0 accent-primary"
                        value={s.id}
                        checked={picked === s.id}
                        disabled={s.problem !== null}
                        onChange={() => setPicked(s.id)}
                      />
                      <span className="grid min-w-0 gap-0.5">
                        <span className="font-medium [overflow-wrap:anywhere]">{s.description || 'N/A'}</span>
                        <span className="text-xs [overflow-wrap:anywhere]">
                          {[
                            formatPersonName(s.patientName) || 'N/A',
                            s.modality || 'N/A',
                            formatDate(s.studyDate) || 'No study date',
                          ].join(' · ')}
                        </span>
                        {s.problem && <span className="text-xs">Does not fit: {s.problem}</span>}
                      </span>
                    </label>
                  </li>
                ))}
              </ul>
            )}
            <p className="text-xs text-muted-foreground">
              A study you upload is listed here once it has been processed; you will be notified.
            </p>
          </fieldset>
        )}
        {error && (
          <Alert variant="destructive" role="alert">
            {error}
          </Alert>
        )}
        <DialogFooter className="sm:justify-between">
          <Button variant="outline" asChild>
            <Link to={uploadPath(attachReturnPath(order.id))}>
              <Upload aria-hidden="true" /> Upload a new study
            </Link>
          </Button>
          <div className="flex flex-col-reverse gap-2 sm:flex-row">
            <Button variant="outline" onClick={onClose} disabled={attach.isPending}>
              Cancel
            </Button>
            <Button onClick={submit} disabled={attach.isPending || fitting === 0}>
              {attach.isPending ? 'Attaching…' : 'Attach Study'}
            </Button>
          </div>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
