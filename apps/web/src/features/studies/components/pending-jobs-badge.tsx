import { Loader2 } from 'lucide-react';
import { Tooltip } from '@/components/ui/tooltip';

/**
 * The Studies list's 'Pending Jobs' badge: shown while process-study jobs are pending. Its text is the
 * darker warning shade: the plain one on the badge's tint measured 4.38:1, under WCAG AA's 4.5:1.
 */
export function PendingJobsBadge({ count }: { count: number }) {
  if (count <= 0) return null;
  const hint = `You have ${count} pending jobs`;
  return (
    <Tooltip content={hint}>
      <span
        tabIndex={0}
        aria-label={`Pending Jobs: ${count}`}
        className="inline-flex h-10 items-center gap-2 rounded-full border border-warning/30 bg-warning/10 px-3 text-sm font-medium text-warning-strong focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        <Loader2 className="size-4 animate-spin" aria-hidden="true" />
        Pending Jobs
        <span className="rounded-full bg-warning px-2 py-0.5 text-xs text-white tabular-nums">{count}</span>
      </span>
    </Tooltip>
  );
}
