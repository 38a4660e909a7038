import { Loader2 } from 'lucide-react';

/** Full-screen blocking notice while a study action runs, e.g. 'Deleting study, please wait...'. */
export function BusyOverlay({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div
      role="alert"
      aria-busy="true"
      className="fixed inset-0 z-[60] flex items-center justify-center bg-slate-900/50 p-4 data-[state=open]:animate-fade-in"
    >
      <div className="flex items-center gap-3 rounded-lg border bg-card px-5 py-4 text-sm font-medium shadow-lg">
        <Loader2 className="size-5 animate-spin text-primary" aria-hidden="true" />
        {message}
      </div>
    </div>
  );
}
