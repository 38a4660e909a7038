import { Download, ExternalLink, FileText, ImageOff } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { formatDate } from '@/lib/format';
import { fetchThumbnail, openViewer, requestDownload, ShlError } from '../api/shl-client';
import type { ShlReport, ShlStudy } from '../utils/bundle';

/** Whether the link's credential no longer reads this study (its thumbnail answers 401 or 404). */
async function linkEnded(study: ShlStudy, headers: Record<string, string>): Promise<boolean> {
  const address = study.endpoint?.address;
  if (!address || !study.uid) return false;
  try {
    await fetchThumbnail(address, study.uid, headers);
    return false;
  } catch (err) {
    return err instanceof ShlError && err.failure.kind === 'ended';
  }
}

function pdfBlob(base64: string): Blob {
  const binary = atob(base64.replace(/\s+/g, ''));
  return new Blob([Uint8Array.from(binary, (c) => c.charCodeAt(0))], { type: 'application/pdf' });
}

/** The PDF as a blob URL for the life of the component (revoked when it goes). */
function usePdfUrl(base64: string | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let next: string | null = null;
    try {
      next = base64 ? URL.createObjectURL(pdfBlob(base64)) : null;
    } catch {
      // Not base64: the report is shown without its PDF.
      next = null;
    }
    setUrl(next);
    return () => {
      if (next) URL.revokeObjectURL(next);
    };
  }, [base64]);
  return url;
}

/** A report: its conclusion, and its PDF shown inline (where the screen is wide enough) and to open or save. */
export function ShlReportView({ report }: { report: ShlReport }) {
  const pdfUrl = usePdfUrl(report.pdfBase64);
  const fileName = `${report.title.replace(/[^\w .-]+/g, '').trim() || 'report'}.pdf`;
  return (
    <article className="grid gap-2 rounded-md border p-3">
      <h4 className="flex flex-wrap items-center gap-x-2 font-medium [overflow-wrap:anywhere]">
        <FileText className="size-4 text-muted-foreground" aria-hidden="true" />
        {report.title}
        {report.date && (
          <span className="text-sm font-normal text-muted-foreground">{formatDate(report.date)}</span>
        )}
      </h4>
      {report.conclusion && (
        <p className="whitespace-pre-wrap text-sm [overflow-wrap:anywhere]">{report.conclusion}</p>
      )}
      {pdfUrl && (
        <>
          {/* Phones do not draw PDFs in a frame; they get the buttons below. */}
          <iframe
            src={pdfUrl}
            title={`${report.title} (PDF)`}
            className="hidden h-[70vh] w-full rounded border sm:block"
          />
          <div className="flex flex-wrap gap-2">
            <Button asChild size="sm" variant="outline">
              <a href={pdfUrl} target="_blank" rel="noopener noreferrer">
                <ExternalLink aria-hidden="true" /> Open PDF
              </a>
            </Button>
            <Button asChild size="sm" variant="outline">
              <a href={pdfUrl} download={fileName}>
                <Download aria-hidden="true" /> Download PDF
              </a>
            </Button>
          </div>
        </>
      )}
    </article>
  );
}

function Thumbnail({
  study,
  headers,
  onEnded,
}: {
  study: ShlStudy;
  headers: Record<string, string>;
  onEnded: () => void;
}) {
  const [state, setState] = useState<{ url: string | null; done: boolean }>({ url: null, done: false });
  const address = study.endpoint?.address;
  useEffect(() => {
    if (!address || !study.uid) {
      setState({ url: null, done: true });
      return;
    }
    const abort = new AbortController();
    let url: string | null = null;
    fetchThumbnail(address, study.uid, headers, abort.signal)
      .then((blob) => {
        url = URL.createObjectURL(blob);
        setState({ url, done: true });
      })
      .catch((err: unknown) => {
        if (abort.signal.aborted) return;
        if (err instanceof ShlError && err.failure.kind === 'ended') onEnded();
        else setState({ url: null, done: true });
      });
    return () => {
      abort.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [address, study.uid, headers, onEnded]);
  return (
    <div className="flex aspect-square w-full items-center justify-center overflow-hidden rounded-md bg-slate-900 sm:w-40">
      {state.url ? (
        <img src={state.url} alt="" className="size-full object-contain" />
      ) : state.done ? (
        <ImageOff className="size-8 text-slate-400" aria-hidden="true" />
      ) : (
        <Spinner className="size-5 text-slate-300" label="Loading preview" />
      )}
    </div>
  );
}

/** One study of the link: preview, what it is, its reports, 'Open images' and 'Download'. */
export function ShlStudyCard({
  study,
  headers: fallbackHeaders,
  onEnded,
}: {
  study: ShlStudy;
  headers: Record<string, string>;
  /** A call made with the link's credential found the link ended. */
  onEnded: () => void;
}) {
  const headers = study.endpoint?.headers ?? fallbackHeaders;
  const [opening, setOpening] = useState(false);
  const [viewerFallback, setViewerFallback] = useState<string | null>(null);
  const [download, setDownload] = useState<'idle' | 'busy' | 'not-allowed'>('idle');
  const [message, setMessage] = useState<string | null>(null);

  const failed = (err: unknown, what: string) => {
    if (err instanceof ShlError && err.failure.kind === 'ended') onEnded();
    else if (err instanceof ShlError && err.failure.kind === 'rate-limited')
      setMessage('Too many requests in a short time. Wait a minute, then try again.');
    else setMessage(`${what} Please try again.`);
  };

  const openImages = async () => {
    setMessage(null);
    setOpening(true);
    // Opened now, while the click still counts, so no pop-up blocker stops it; pointed at the viewer once known.
    const win = window.open('', '_blank');
    try {
      const url = await openViewer(study.id, headers);
      if (win) {
        win.opener = null;
        win.location.href = url;
      } else {
        setViewerFallback(url);
      }
    } catch (err) {
      win?.close();
      failed(err, 'The viewer could not be opened.');
    } finally {
      setOpening(false);
    }
  };

  const downloadStudy = async () => {
    setMessage(null);
    setDownload('busy');
    try {
      const result = await requestDownload(study.id, headers);
      if (result === 'not-allowed') {
        // The server says the same for a link without downloads and for one that ended; whether the
        // link still reads its images tells the two apart.
        if (await linkEnded(study, headers)) onEnded();
        else setDownload('not-allowed');
        return;
      }
      setDownload('idle');
      // The ZIP comes as an attachment: the page stays.
      window.location.assign(result.url);
    } catch (err) {
      setDownload('idle');
      failed(err, 'The download could not be started.');
    }
  };

  const details = [
    study.modalities.join(', '),
    study.numberOfSeries !== null && `${study.numberOfSeries} series`,
    study.numberOfInstances !== null &&
      `${study.numberOfInstances} ${study.numberOfInstances === 1 ? 'image' : 'images'}`,
  ].filter(Boolean);

  return (
    <Card className="grid gap-4 p-4">
      <div className="grid gap-4 sm:grid-cols-[10rem_minmax(0,1fr)]">
        <Thumbnail study={study} headers={headers} onEnded={onEnded} />
        <div className="grid content-start gap-2">
          <h3 className="text-base font-semibold [overflow-wrap:anywhere]">
            {study.description || 'Untitled study'}
          </h3>
          <p className="text-sm text-muted-foreground">
            {study.started ? formatDate(study.started) || study.started : 'Date not given'}
          </p>
          {details.length > 0 && <p className="text-sm">{details.join(' · ')}</p>}
          <div className="flex flex-wrap gap-2 pt-1">
            <Button onClick={() => void openImages()} disabled={opening} aria-busy={opening || undefined}>
              <ExternalLink aria-hidden="true" /> {opening ? 'Opening…' : 'Open images'}
            </Button>
            {download !== 'not-allowed' && (
              <Button
                variant="outline"
                onClick={() => void downloadStudy()}
                disabled={download === 'busy'}
                aria-busy={download === 'busy' || undefined}
              >
                <Download aria-hidden="true" /> {download === 'busy' ? 'Preparing…' : 'Download'}
              </Button>
            )}
          </div>
          {download === 'not-allowed' && (
            <p className="text-sm text-muted-foreground">
              The patient has not allowed downloading these images.
            </p>
          )}
          {viewerFallback && (
            <p className="text-sm">
              Your browser blocked the new tab.{' '}
              <a
                href={viewerFallback}
                target="_blank"
                rel="noopener noreferrer"
                className="text-primary underline"
              >
                Open the images
              </a>
            </p>
          )}
          {message && (
            <p role="alert" className="text-sm text-destructive">
              {message}
            </p>
          )}
        </div>
      </div>
      {study.reports.length > 0 && (
        <div className="grid gap-2">
          <h4 className="text-sm font-semibold">{study.reports.length === 1 ? 'Report' : 'Reports'}</h4>
          {study.reports.map((report) => (
            <ShlReportView key={report.key} report={report} />
          ))}
        </div>
      )}
    </Card>
  );
}
