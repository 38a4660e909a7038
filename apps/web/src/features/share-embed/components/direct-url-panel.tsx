import { Copy, Loader2, RefreshCw } from 'lucide-react';
import { useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { toast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import { useRenewInviteLink } from '../api/get-invite-link';
import { copyText } from '@/lib/clipboard';

/** Share & Embed → Direct URL: the invite link to copy, and revoking it for a new one. */
export function DirectUrlPanel({ url, expiresAt }: { url: string; expiresAt: string }) {
  const id = useId();
  const [confirming, setConfirming] = useState(false);
  const renew = useRenewInviteLink();

  const copy = async () => {
    try {
      await copyText(url);
      toast({ title: 'Copied', description: 'Invite link copied to clipboard.' });
    } catch {
      toast({
        title: 'Copy Failed',
        description: 'Failed to copy URL. Please try again.',
        variant: 'destructive',
      });
    }
  };

  const revoke = () =>
    renew.mutate(undefined, {
      onSuccess: () => {
        setConfirming(false);
        toast({ title: 'New link created', description: 'The previous link no longer works.' });
      },
      onError: (err) => toast({ title: 'Error', description: errorMessage(err), variant: 'destructive' }),
    });

  return (
    <div className="grid gap-4">
      <div className="grid gap-2">
        <Label htmlFor={`${id}-url`}>Your invite link</Label>
        <div className="flex flex-col gap-2 sm:flex-row">
          <Input
            id={`${id}-url`}
            readOnly
            value={url}
            onFocus={(e) => e.currentTarget.select()}
            className="font-mono text-xs"
          />
          <Button onClick={() => void copy()} className="shrink-0">
            <Copy aria-hidden="true" /> Copy
          </Button>
        </div>
        <p className="text-sm text-muted-foreground">
          Whoever opens this link signs in or registers and uploads studies straight into your account. It
          works until {formatDate(expiresAt)}.
        </p>
      </div>
      <div>
        <Button variant="outline" onClick={() => setConfirming(true)}>
          <RefreshCw aria-hidden="true" /> Revoke and create a new link
        </Button>
      </div>
      <Dialog open={confirming} onOpenChange={setConfirming}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Revoke this link?</DialogTitle>
            <DialogDescription>
              The current link, its QR code and every widget you embedded stop working at once. You get a new
              link to share instead.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <DialogClose asChild>
              <Button variant="outline">Cancel</Button>
            </DialogClose>
            <Button variant="destructive" onClick={revoke} disabled={renew.isPending}>
              {renew.isPending && <Loader2 className="animate-spin" aria-hidden="true" />}
              Revoke and create new link
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </div>
  );
}
