import { CheckCircle2 } from 'lucide-react';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Progress } from '@/components/ui/progress';
import type { UploadPhase } from '../hooks/use-study-upload';

const TITLES: Record<Exclude<UploadPhase, 'idle'>, string> = {
  archiving: 'Analyzing...',
  uploading: 'Uploading...',
  done: 'Upload complete',
};

/** The upload progress dialog: modal while archiving and uploading; it cannot be dismissed until done. */
export function UploadProgressDialog({
  phase,
  percent,
  onBackToStudies,
}: {
  phase: UploadPhase;
  percent: number;
  onBackToStudies: () => void;
}) {
  const open = phase !== 'idle';
  const done = phase === 'done';
  const title = phase === 'idle' ? '' : TITLES[phase];
  return (
    <Dialog open={open}>
      <DialogContent
        hideClose
        onEscapeKeyDown={(e) => e.preventDefault()}
        onPointerDownOutside={(e) => e.preventDefault()}
        onInteractOutside={(e) => e.preventDefault()}
      >
        <DialogHeader>
          <DialogTitle className="flex items-center gap-2">
            {done && <CheckCircle2 className="size-5 text-success" aria-hidden="true" />}
            {title}
          </DialogTitle>
          {done ? (
            <DialogDescription>
              Your files have been uploaded successfully and your study is being processed. You will be
              notified once the processing is complete.
            </DialogDescription>
          ) : (
            <DialogDescription>
              {phase === 'archiving'
                ? 'Preparing your files for upload. Please keep this page open.'
                : 'Sending your study. Please keep this page open.'}
            </DialogDescription>
          )}
        </DialogHeader>
        {!done && (
          <div className="grid gap-2">
            <Progress value={percent} aria-label={title} />
            <p className="text-right text-sm tabular-nums text-muted-foreground" aria-live="polite">
              {percent}%
            </p>
          </div>
        )}
        {done && (
          <DialogFooter>
            <Button onClick={onBackToStudies}>Back To Studies</Button>
          </DialogFooter>
        )}
      </DialogContent>
    </Dialog>
  );
}
