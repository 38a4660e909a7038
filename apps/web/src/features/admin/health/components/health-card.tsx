import { CheckCircle2, RefreshCw, XCircle } from 'lucide-react';
import { ListStatus } from '@/components/list/list-status';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { cn } from '@/lib/utils';
import { useAdminHealth } from '../api/admin-health';

const size = (bytes: number) => {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v >= 100 || i === 0 ? 0 : 1)} ${units[i]}`;
};

function Row({ ok, label, detail }: { ok: boolean; label: string; detail: string }) {
  const Icon = ok ? CheckCircle2 : XCircle;
  return (
    <li className="flex items-center gap-3 rounded-md border p-3">
      <Icon aria-hidden="true" className={cn('size-5', ok ? 'text-green-600' : 'text-destructive')} />
      <div>
        <p className="font-medium">{label}</p>
        <p className="text-sm text-muted-foreground">{detail}</p>
      </div>
    </li>
  );
}

/** Database, storage, job queue (and how many jobs wait) and free disk space. */
export function HealthCard() {
  const health = useAdminHealth();
  const h = health.data;
  return (
    <Card>
      <CardHeader className="flex-row items-center justify-between gap-2 space-y-0">
        <div>
          <CardTitle>Health</CardTitle>
          <CardDescription>
            {h ? (h.status === 'ok' ? 'All systems working.' : 'Something needs attention.') : ' '}
          </CardDescription>
        </div>
        <Button variant="outline" size="sm" onClick={() => health.refetch()} disabled={health.isFetching}>
          <RefreshCw aria-hidden="true" className={cn(health.isFetching && 'animate-spin')} /> Refresh
        </Button>
      </CardHeader>
      <CardContent>
        <ListStatus
          query={health}
          count={h ? 1 : 0}
          error="The health checks could not be run"
          empty={null}
        />
        {h && !health.isError && (
          <ul className="grid gap-3 sm:grid-cols-2" aria-label="Health">
            <Row
              ok={h.database.ok}
              label="Database"
              detail={`${h.database.kind === 'pglite' ? 'Embedded (PGlite)' : 'PostgreSQL'}: ${h.database.ok ? 'reachable' : 'unreachable'}`}
            />
            <Row
              ok={h.storage.ok}
              label="Storage"
              detail={`${h.storage.kind === 's3' ? 'S3' : 'Local files'}: ${h.storage.ok ? 'reachable' : 'unreachable'}`}
            />
            <Row
              ok={h.queue.ok}
              label="Job queue"
              detail={h.queue.depth === null ? 'Depth unknown' : `${h.queue.depth} waiting or running`}
            />
            <Row
              ok={h.disk ? h.disk.freeBytes / Math.max(1, h.disk.totalBytes) > 0.05 : false}
              label="Disk"
              detail={h.disk ? `${size(h.disk.freeBytes)} free of ${size(h.disk.totalBytes)}` : 'Unknown'}
            />
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
