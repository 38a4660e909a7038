import { RefreshCw } from 'lucide-react';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';

/** Loading and failure states shared by the admin lists. */
export function QueryState({
  isPending,
  error,
  onRetry,
}: {
  isPending: boolean;
  error: unknown;
  onRetry: () => void;
}) {
  if (isPending) {
    return (
      <div className="flex items-center gap-2 py-8 text-sm text-muted-foreground">
        <Spinner className="size-4" /> Loading…
      </div>
    );
  }
  if (error) {
    return (
      <Alert variant="destructive" role="alert" className="items-center justify-between">
        <AlertDescription>{errorMessage(error)}</AlertDescription>
        <Button variant="outline" size="sm" onClick={onRetry}>
          <RefreshCw aria-hidden="true" /> Retry
        </Button>
      </Alert>
    );
  }
  return null;
}
