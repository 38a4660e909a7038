import { EXPORT_KEEP_DAYS } from '@mi/contracts/exports';
import { Download, RefreshCw } from 'lucide-react';
import { useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Checkbox } from '@/components/ui/checkbox';
import { Label } from '@/components/ui/label';
import { Progress } from '@/components/ui/progress';
import { Spinner } from '@/components/ui/spinner';
import { Switch } from '@/components/ui/switch';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDate, formatDateTime } from '@/lib/format';
import { useCreateExport, useExportableStudies, useExports } from '../api/exports';

const STATUS_LABEL = {
  queued: 'Waiting',
  building: 'Preparing',
  ready: 'Ready',
  failed: 'Failed',
  expired: 'Expired',
} as const;

function size(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/**
 * 'Export my data': one ZIP with the chosen studies (all by default) as DICOM media with a
 * DICOMDIR, delivered reports, a FHIR R4 Bundle, the sharing and access history and an index.html.
 * When asked, an ISO 9660 disc image of the same files is made too, listed as a second download.
 * Built in the background; the list shows its progress and, once ready, the downloads until they
 * expire. A download that breaks off resumes where it stopped (the server answers Range).
 */
export function ExportDataCard({ userId }: { userId: string }) {
  const studies = useExportableStudies(userId);
  const exports = useExports();
  const create = useCreateExport();
  const [all, setAll] = useState(true);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [deidentify, setDeidentify] = useState(false);
  const [iso, setIso] = useState(false);
  const list = exports.data ?? [];
  const running = list.some((e) => e.status === 'queued' || e.status === 'building');
  const available = studies.data ?? [];

  const toggle = (id: string, on: boolean) =>
    setChosen((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  const start = () =>
    create.mutate(
      { ...(all ? {} : { studyIds: [...chosen] }), deidentify, ...(iso ? { iso: true } : {}) },
      {
        onSuccess: () =>
          toast({ title: 'Export started', description: 'We will notify you when it is ready to download.' }),
        onError: (err) => toastError(errorMessage(err, 'The export could not be started.')),
      },
    );

  return (
    <Card>
      <CardHeader className="flex-row items-start justify-between gap-2 space-y-0">
        <div>
          <CardTitle>Export my data</CardTitle>
          <CardDescription>
            One ZIP with your studies as DICOM files (with a DICOMDIR, readable by CD burners, import stations
            and other viewers), your reports, a FHIR record and your sharing and access history. Kept{' '}
            {EXPORT_KEEP_DAYS} days.
          </CardDescription>
        </div>
        <Button
          variant="ghost"
          size="icon"
          aria-label="Refresh exports"
          onClick={() => exports.refetch()}
          disabled={exports.isFetching}
        >
          <RefreshCw aria-hidden="true" />
        </Button>
      </CardHeader>
      <CardContent className="grid gap-4">
        <fieldset className="grid gap-2">
          <legend className="mb-1 text-sm font-medium">Studies</legend>
          <div className="flex items-center gap-2">
            <Checkbox id="export-all" checked={all} onCheckedChange={(v) => setAll(v === true)} />
            <Label htmlFor="export-all">All my studies{studies.data ? ` (${available.length})` : ''}</Label>
          </div>
          {!all && (
            <ul
              className="grid max-h-56 gap-1 overflow-y-auto rounded-md border p-2"
              aria-label="Studies to export"
            >
              {available.map((s) => (
                <li key={s.id} className="flex items-center gap-2">
                  <Checkbox
                    id={`export-${s.id}`}
                    checked={chosen.has(s.id)}
                    onCheckedChange={(v) => toggle(s.id, v === true)}
                  />
                  <Label htmlFor={`export-${s.id}`} className="font-normal">
                    {s.metadata.studyDescription ?? 'Untitled study'}
                    {s.metadata.studyDate ? ` · ${formatDate(s.metadata.studyDate)}` : ''}
                    {s.metadata.modality ? ` · ${s.metadata.modality}` : ''}
                  </Label>
                </li>
              ))}
              {available.length === 0 && <li className="text-sm text-muted-foreground">No studies yet.</li>}
            </ul>
          )}
        </fieldset>
        <div className="flex items-center gap-2">
          <Switch id="export-deidentify" checked={deidentify} onCheckedChange={setDeidentify} />
          <Label htmlFor="export-deidentify">
            De-identify the images (reports and history are then left out)
          </Label>
        </div>
        <div className="flex items-center gap-2">
          <Checkbox id="export-iso" checked={iso} onCheckedChange={(v) => setIso(v === true)} />
          <Label htmlFor="export-iso">Also make a disc image (ISO) for burning</Label>
        </div>
        <div>
          <Button
            onClick={start}
            disabled={create.isPending || running || (!all && chosen.size === 0)}
            aria-describedby={running ? 'export-running' : undefined}
          >
            {create.isPending ? 'Starting…' : 'Export my data'}
          </Button>
          {running && (
            <p id="export-running" className="mt-1 text-xs text-muted-foreground">
              An export is being prepared; you can start another when it is ready.
            </p>
          )}
        </div>

        {exports.isPending && <Spinner className="size-5" label="Loading exports" />}
        {exports.isError && (
          <p role="alert" className="text-sm text-destructive">
            {errorMessage(exports.error)}
          </p>
        )}
        {list.length > 0 && (
          <ul className="divide-y rounded-md border" aria-label="Your exports">
            {list.map((e) => (
              <li key={e.id} className="grid gap-2 p-3">
                <div className="flex flex-wrap items-center gap-2">
                  <span className="font-medium">{formatDateTime(e.createdAt)}</span>
                  <Badge variant={e.status === 'ready' ? 'default' : 'secondary'}>
                    {STATUS_LABEL[e.status]}
                  </Badge>
                  <span className="text-xs text-muted-foreground">
                    {e.studyCount} {e.studyCount === 1 ? 'study' : 'studies'}
                    {e.deidentify ? ' · de-identified' : ''}
                    {e.iso ? ' · with disc image' : ''}
                  </span>
                </div>
                {(e.status === 'queued' || e.status === 'building') && (
                  <Progress value={e.progress} aria-label={`Export progress ${e.progress}%`} />
                )}
                {e.status === 'failed' && e.error && <p className="text-sm text-destructive">{e.error}</p>}
                {e.status === 'ready' &&
                  e.files.map((f) => (
                    <div key={f.name} className="flex flex-wrap items-center gap-3">
                      {/* The file name is long: on a phone the button wraps it rather than widen the page. */}
                      <Button
                        asChild
                        variant="outline"
                        size="sm"
                        className="h-auto min-h-8 max-w-full whitespace-normal py-1.5 text-left"
                      >
                        <a href={f.url} download={f.name}>
                          <Download aria-hidden="true" />
                          <span className="min-w-0 [overflow-wrap:anywhere]">
                            Download {f.name} ({size(f.size)})
                          </span>
                        </a>
                      </Button>
                      {e.expiresAt && (
                        <span className="text-xs text-muted-foreground">
                          Available until {formatDateTime(e.expiresAt)}
                        </span>
                      )}
                    </div>
                  ))}
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
