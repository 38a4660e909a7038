import type { Provider } from '@mi/contracts/sharing';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';

/** Confirmation before a provider leaves the user's list. */
export function RemoveProviderDialog({
  provider,
  pending,
  onCancel,
  onConfirm,
}: {
  provider: Provider | null;
  pending: boolean;
  onCancel: () => void;
  onConfirm: (provider: Provider) => void;
}) {
  return (
    <Dialog open={provider !== null} onOpenChange={(open) => !open && onCancel()}>
      <DialogContent role="alertdialog">
        <DialogHeader>
          <DialogTitle>Remove Provider</DialogTitle>
          <DialogDescription>
            Remove <span className="font-medium text-foreground">{provider?.name}</span> from your providers?
            Studies you already shared with this provider stay shared; revoke access from each study's Share
            dialog if you want that too.
          </DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <Button variant="outline" onClick={onCancel}>
            Cancel
          </Button>
          <Button variant="destructive" disabled={pending} onClick={() => provider && onConfirm(provider)}>
            Remove Provider
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
