import type { Provider } from '@mi/contracts/sharing';
import { FolderOpen } from 'lucide-react';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDate, formatPersonName } from '@/lib/format';
import { useProviderShares } from '../api/get-provider-shares';
import { useRevokeProviderShare } from '../api/revoke-provider-share';

/** View Shared Studies: what the user has shared with one provider, each share with Revoke. */
export function ProviderSharesDialog({
  provider,
  onClose,
}: {
  provider: Provider | null;
  onClose: () => void;
}) {
  const shares = useProviderShares(provider?.id ?? null);
  const list = shares.data ?? [];
  const revoke = useRevokeProviderShare();
  const revokeShare = (shareId: string, studyId: string) =>
    revoke.mutate(
      { shareId, studyId },
      {
        onSuccess: () =>
          toast({
            title: 'Share Removed',
            description: `${provider?.name ?? 'The provider'} can no longer view this study.`,
          }),
        onError: (err) => toastError(errorMessage(err)),
      },
    );
  return (
    <Dialog open={provider !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="max-w-2xl">
        <DialogHeader>
          <DialogTitle>Shared Studies</DialogTitle>
          <DialogDescription>Studies you shared with {provider?.name}.</DialogDescription>
        </DialogHeader>
        {shares.isPending ? (
          <div className="flex justify-center py-10">
            <Spinner className="size-6" label="Loading shared studies" />
          </div>
        ) : shares.isError ? (
          <Alert variant="destructive">
            <AlertDescription>Error loading shared studies.</AlertDescription>
          </Alert>
        ) : list.length === 0 ? (
          <div className="flex flex-col items-center gap-2 py-10 text-center text-sm text-muted-foreground">
            <FolderOpen className="size-6" aria-hidden="true" />
            No studies have been shared with this provider yet.
          </div>
        ) : (
          <ul className="grid max-h-[60dvh] gap-2 overflow-y-auto" aria-label="Shared studies">
            {list.map((s) => {
              const m = s.study.metadata;
              return (
                <li key={s.id} className="grid gap-1 rounded-md border p-3 text-sm">
                  <div className="flex items-start justify-between gap-3">
                    <span className="font-medium [overflow-wrap:anywhere]">
                      {m.studyDescription || 'N/A'}
                    </span>
                    <Button
                      type="button"
                      variant="outline"
                      size="sm"
                      className="shrink-0 text-destructive hover:text-destructive"
                      disabled={revoke.isPending}
                      aria-label={`Revoke ${m.studyDescription || 'this study'}`}
                      onClick={() => revokeShare(s.id, s.study._id)}
                    >
                      Revoke
                    </Button>
                  </div>
                  <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5">
                    <dt className="text-muted-foreground">Patient</dt>
                    <dd className="[overflow-wrap:anywhere]">{formatPersonName(m.patientName) || 'N/A'}</dd>
                    <dt className="text-muted-foreground">Modality</dt>
                    <dd>{m.modality || 'N/A'}</dd>
                    <dt className="text-muted-foreground">Shared on</dt>
                    <dd>
                      <time dateTime={s.createdAt}>{formatDate(s.createdAt)}</time>
                    </dd>
                  </dl>
                </li>
              );
            })}
          </ul>
        )}
      </DialogContent>
    </Dialog>
  );
}
