import { Copy, Download } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { toast } from '@/hooks/use-toast';
import { copyPng } from '@/lib/clipboard';

/** QR codes of the invite link: 320 px wide with a margin of 2 modules. */
const QR_OPTIONS = { width: 320, margin: 2 } as const;

function failure(title: string, description: string) {
  toast({ title, description, variant: 'destructive' });
}

/** Share & Embed → QR Code: the invite link as a QR code, to copy or download as PNG. */
export function QrCodePanel({ url }: { url: string }) {
  const [dataUrl, setDataUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let current = true;
    setDataUrl(null);
    setFailed(false);
    import('qrcode')
      .then((QRCode) => QRCode.toDataURL(url, QR_OPTIONS))
      .then((png) => {
        if (current) setDataUrl(png);
      })
      .catch(() => {
        if (!current) return;
        setFailed(true);
        failure('QR Code Generation Failed', 'Failed to generate QR code. Please try again.');
      });
    return () => {
      current = false;
    };
  }, [url]);

  const copy = async () => {
    try {
      const blob = await (await fetch(dataUrl!)).blob();
      await copyPng(blob);
      toast({ title: 'Copied', description: 'QR code copied to clipboard.' });
    } catch {
      failure('Copy Failed', 'Failed to copy QR code. Please try again.');
    }
  };

  return (
    <div className="grid justify-items-center gap-4">
      <p className="text-center text-sm text-muted-foreground">
        Anyone who scans this code can sign in or register and upload studies straight into your account.
      </p>
      <div className="flex aspect-square w-full max-w-[320px] items-center justify-center rounded-md border bg-white">
        {dataUrl ? (
          <img
            src={dataUrl}
            width={320}
            height={320}
            alt="QR code of your invite link"
            className="h-auto w-full"
          />
        ) : failed ? (
          <p className="p-4 text-center text-sm text-destructive">The QR code could not be generated.</p>
        ) : (
          <Spinner label="Generating the QR code" />
        )}
      </div>
      <div className="flex flex-wrap justify-center gap-2">
        <Button variant="outline" disabled={!dataUrl} onClick={() => void copy()}>
          <Copy aria-hidden="true" /> Copy Image
        </Button>
        <Button asChild={Boolean(dataUrl)} disabled={!dataUrl}>
          {dataUrl ? (
            <a href={dataUrl} download="medical-imaging-invite-qr.png">
              <Download aria-hidden="true" /> Download PNG
            </a>
          ) : (
            <span>
              <Download aria-hidden="true" /> Download PNG
            </span>
          )}
        </Button>
      </div>
    </div>
  );
}
