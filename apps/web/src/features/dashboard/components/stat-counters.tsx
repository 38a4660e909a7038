import { CheckCircle2, Clock, FileImage, type LucideIcon } from 'lucide-react';
import { Card } from '@/components/ui/card';

function Counter({ label, value, icon: Icon }: { label: string; value: number | null; icon: LucideIcon }) {
  return (
    <Card className="flex items-center gap-4 p-4 sm:p-5">
      <span className="flex size-11 shrink-0 items-center justify-center rounded-full bg-accent text-accent-foreground">
        <Icon className="size-5" aria-hidden="true" />
      </span>
      <div className="min-w-0">
        <p className="text-sm text-muted-foreground">{label}</p>
        <p className="text-2xl font-semibold tabular-nums" aria-label={`${label}: ${value ?? 'loading'}`}>
          {value ?? '–'}
        </p>
      </div>
    </Card>
  );
}

/** Order states that count as a pending analysis: paid, and not yet finished. */
const PENDING = new Set(['pending_approval', 'pending_data_upload', 'in_progress']);

/** The Dashboard's analysis counts from the user's orders (0 while they load). */
export function analysisCounts(orders: ReadonlyArray<{ orderStatus: string }> | undefined): {
  pending: number;
  completed: number;
} {
  return {
    pending: orders?.filter((o) => PENDING.has(o.orderStatus)).length ?? 0,
    completed: orders?.filter((o) => o.orderStatus === 'completed').length ?? 0,
  };
}

/** The Dashboard's counters; the analysis counts come from the user's orders (analysisCounts). */
export function StatCounters({
  totalStudies,
  pendingAnalysis,
  completedAnalysis,
}: {
  totalStudies: number | null;
  pendingAnalysis: number;
  completedAnalysis: number;
}) {
  return (
    <div className="grid gap-4 sm:grid-cols-3">
      <Counter label="Total Studies" value={totalStudies} icon={FileImage} />
      <Counter label="Pending Analysis" value={pendingAnalysis} icon={Clock} />
      <Counter label="Completed Analysis" value={completedAnalysis} icon={CheckCircle2} />
    </div>
  );
}
