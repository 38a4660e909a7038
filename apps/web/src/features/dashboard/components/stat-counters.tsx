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

/**
 * The Dashboard's counters. Analysis counts come from orders; until the user has ordered an
 * analysis they are truly 0.
 */
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
