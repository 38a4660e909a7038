import type { CreatedLink } from '@mi/contracts/links';
import { Check, Copy, Download, Printer, TriangleAlert } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import { createPortal } from 'react-dom';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { toast } from '@/hooks/use-toast';
import { formatDateTime } from '@/lib/format';
import { copyText } from '@/lib/clipboard';
import { saveFile, svgDataUrl } from '../utils/files';

/**
 * Printing shows only the sheet below while this view is open: index.css hides every other child of
 * <body> (the app and the dialog's portal) when <body> carries data-print-link.
 */
function usePrintSheet(): void {
  useEffect(() => {
    document.body.setAttribute('data-print-link', '');
    return () => document.body.removeAttribute('data-print-link');
  }, []);
}

/** The created link: a large QR code, the link to copy, print and download, and what to do next. */
export function LinkCreated({
  created,
  passcodeSet,
  onDone,
}: {
  created: CreatedLink;
  passcodeSet: boolean;
  onDone: () => void;
}) {
  const id = useId();
  const [copied, setCopied] = useState(false);
  usePrintSheet();
  const { link } = created;
  const checkin = link.mode === 'checkin';
  const expires = formatDateTime(link.expiresAt);
  const qrSrc = svgDataUrl(created.qrSvg);
  const title = link.label || (checkin ? 'Check-in link' : 'Study link');

  const copy = async () => {
    try {
      await copyText(created.viewerUrl);
      setCopied(true);
      toast({ title: 'Link copied', description: 'Paste it into a message to the recipient.' });
    } catch {
      toast({ title: 'Copy Failed', description: 'Select the link and copy it.', variant: 'destructive' });
    }
  };

  const downloadPng = async () => {
    try {
      const QRCode = await import('qrcode');
      const png = await QRCode.toDataURL(created.viewerUrl, {
        errorCorrectionLevel: 'M',
        width: 1024,
        margin: 4,
      });
      saveFile(png, 'study-link-qr.png');
    } catch {
      toast({
        title: 'QR Code Generation Failed',
        description: 'Failed to generate QR code. Please try again.',
        variant: 'destructive',
      });
    }
  };

  return (
    <>
      <DialogHeader>
        <DialogTitle>{checkin ? 'Your check-in link is ready' : 'Your link is ready'}</DialogTitle>
        <DialogDescription>
          {checkin
            ? 'Show this QR code at the front desk.'
            : 'Let the recipient scan the QR code, or send them the link.'}{' '}
          It works until <span className="font-medium text-foreground">{expires}</span>.
        </DialogDescription>
      </DialogHeader>
      <div className="grid justify-items-center gap-4">
        <div className="w-full max-w-[22rem] rounded-md border bg-white p-2">
          <img
            src={qrSrc}
            alt={`QR code of the link${link.label ? ` “${link.label}”` : ''}`}
            className="h-auto w-full"
          />
        </div>
        <div className="grid w-full gap-2">
          <Label htmlFor={`${id}-url`}>Link</Label>
          <div className="flex gap-2">
            <Input
              id={`${id}-url`}
              readOnly
              value={created.viewerUrl}
              onFocus={(e) => e.currentTarget.select()}
              className="min-w-0 font-mono text-xs"
            />
            <Button type="button" variant="outline" onClick={() => void copy()}>
              {copied ? <Check aria-hidden="true" /> : <Copy aria-hidden="true" />}{' '}
              {copied ? 'Copied' : 'Copy'}
            </Button>
          </div>
        </div>
        <div className="flex w-full flex-wrap gap-2">
          <Button type="button" variant="outline" onClick={() => window.print()}>
            <Printer aria-hidden="true" /> Print
          </Button>
          <Button
            type="button"
            variant="outline"
            onClick={() =>
              saveFile(new Blob([created.qrSvg], { type: 'image/svg+xml' }), 'study-link-qr.svg')
            }
          >
            <Download aria-hidden="true" /> QR as SVG
          </Button>
          <Button type="button" variant="outline" onClick={() => void downloadPng()}>
            <Download aria-hidden="true" /> QR as PNG
          </Button>
        </div>
        {passcodeSet && (
          <Alert>
            <TriangleAlert className="size-4" aria-hidden="true" />
            <AlertDescription>
              Send the passcode separately: tell it by phone or in person, never in the same message as the
              link. Anyone with both can open your studies.
            </AlertDescription>
          </Alert>
        )}
        <p className="w-full text-sm text-muted-foreground">
          You can see who opened it, pause it, extend it or end it on the Links page.
        </p>
      </div>
      <DialogFooter>
        <Button type="button" onClick={onDone}>
          Done
        </Button>
      </DialogFooter>
      {createPortal(
        <div data-print-sheet="" className="hidden p-8 text-center text-black print:block">
          <h1 className="text-2xl font-semibold">{title}</h1>
          <img src={qrSrc} alt="" className="mx-auto my-6 h-auto w-[12cm]" />
          <p className="text-lg">Valid until {expires}</p>
          <p className="mt-2 text-sm">
            {checkin
              ? 'Scan at the front desk to see the patient’s studies.'
              : 'Scan with a phone camera to open the studies.'}
            {passcodeSet ? ' A passcode is needed; ask the patient for it.' : ''}
          </p>
        </div>,
        document.body,
      )}
    </>
  );
}
