import { AlertTriangle, ArrowLeft, FileQuestion, Loader2, RotateCw } from 'lucide-react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogTitle } from '@/components/ui/dialog';
import { paths } from '@/config/paths';
import type { LaunchState } from '../hooks/use-viewer-launch';

function Panel({
  icon,
  title,
  text,
  onRetry,
}: {
  icon: React.ReactNode;
  title: string;
  text?: string;
  onRetry?: () => void;
}) {
  return (
    <div className="grid max-w-md justify-items-center gap-4 text-center">
      {icon}
      <h1 className="text-xl font-semibold">{title}</h1>
      {text && <p className="text-sm text-slate-300">{text}</p>}
      <div className="flex flex-wrap justify-center gap-2">
        {onRetry && (
          <Button variant="secondary" onClick={onRetry}>
            <RotateCw aria-hidden="true" /> Try again
          </Button>
        )}
        <Button asChild variant="outline" className="text-foreground">
          <Link to={paths.studies}>
            <ArrowLeft aria-hidden="true" /> Back to My Studies
          </Link>
        </Button>
      </div>
    </div>
  );
}

/** /studies/transfer/:studyId: the blocking preparation dialog, then 'Study not found.' or the failure. */
export function ViewerPreparation({ state, onRetry }: { state: LaunchState; onRetry: () => void }) {
  return (
    <main className="flex min-h-dvh items-center justify-center bg-slate-950 p-6 text-slate-100">
      <Dialog open={state.kind === 'preparing'}>
        <DialogContent
          hideClose
          onEscapeKeyDown={(e) => e.preventDefault()}
          onPointerDownOutside={(e) => e.preventDefault()}
          onInteractOutside={(e) => e.preventDefault()}
          className="max-w-sm"
        >
          <div className="flex items-center gap-3">
            <Loader2 className="size-6 animate-spin text-primary" aria-hidden="true" />
            <div>
              <DialogTitle className="text-base">Preparing study viewer, please wait…</DialogTitle>
              <DialogDescription className="sr-only">
                The study opens in the viewer as soon as it is ready.
              </DialogDescription>
            </div>
          </div>
        </DialogContent>
      </Dialog>
      {state.kind === 'not-found' && (
        <Panel
          icon={<FileQuestion className="size-10 text-slate-400" aria-hidden="true" />}
          title="Study not found."
        />
      )}
      {state.kind === 'failed' && (
        <Panel
          icon={<AlertTriangle className="size-10 text-amber-400" aria-hidden="true" />}
          title="The viewer could not be opened"
          text={state.message}
          onRetry={onRetry}
        />
      )}
    </main>
  );
}
