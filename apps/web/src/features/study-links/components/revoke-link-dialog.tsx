import type { LinkSummary } from '@mi/contracts/links';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useRevokeLink } from '../api/update-link';

/** Links page → Revoke: asks once, then ends the link for good. */
export function RevokeLinkDialog({ link, onClose }: { link: LinkSummary | null; onClose: () => void }) {
  const revoke = useRevokeLink();
  const confirm = () => {
    if (!link) return;
    revoke.mutate(link.id, {
      onSuccess: () => {
        toast({ title: 'Link revoked', description: 'Nobody can open your studies with it any more.' });
        onClose();
      },
      onError: (err) => toastError(errorMessage(err, 'The link could not be revoked. Please try again.')),
    });
  };
  return (
    <Dialog open={link !== null} onOpenChange={(open) => !open && !revoke.isPending && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Revoke this link?</DialogTitle>
          <DialogDescription>
            {link?.label ? (
              <>
                <span className="font-medium text-foreground">{link.label}</span> stops working at once.{' '}
              </>
            ) : (
              'The link stops working at once. '
            )}
            Whoever has it, or has it open right now, can no longer see your studies. This cannot be undone.
          </DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <Button type="button" variant="outline" onClick={onClose} disabled={revoke.isPending}>
            Cancel
          </Button>
          <Button
            type="button"
            variant="destructive"
            onClick={confirm}
            disabled={revoke.isPending}
            aria-busy={revoke.isPending || undefined}
          >
            Revoke link
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
