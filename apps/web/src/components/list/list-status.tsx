import { RefreshCw } from 'lucide-react';
import type { ReactNode } from 'react';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { cn } from '@/lib/utils';

/** What a list needs of its query (a TanStack Query result fits). */
export interface ListQuery {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch: () => unknown;
}

/**
 * What a list shows in place of its rows, or null when it shows rows. A failed request is an error
 * even when rows from before are still held: a list that could not be loaded never reads as empty.
 */
export function listStatus(query: ListQuery, shown: number): 'loading' | 'error' | 'empty' | null {
  if (query.isError) return 'error';
  if (query.isPending) return 'loading';
  return shown === 0 ? 'empty' : null;
}

function RetryButton({ query, label }: { query: ListQuery; label: string }) {
  return (
    <Button variant="outline" size="sm" className="w-fit" onClick={() => void query.refetch()}>
      <RefreshCw aria-hidden="true" /> {label}
    </Button>
  );
}

/**
 * The one row a table shows instead of its rows: a spinner while loading, why it failed with a
 * retry button, or `empty` when nothing is there or matches. Nothing when there are rows.
 */
export function ListStatusRow({
  query,
  count,
  columns,
  loading = 'Loading...',
  error,
  empty,
  retryLabel = 'Retry',
}: {
  query: ListQuery;
  /** Rows shown (after search and filters). */
  count: number;
  columns: number;
  loading?: string;
  /** The failure, as the list words it: 'Failed to load services.' */
  error: string;
  empty: ReactNode;
  retryLabel?: string;
}) {
  const status = listStatus(query, count);
  if (!status) return null;
  return (
    <tr>
      <td
        colSpan={columns}
        className={cn(
          'px-3 py-6 text-center',
          status === 'error' ? 'text-destructive' : 'text-muted-foreground',
        )}
      >
        {status === 'loading' && (
          <span className="inline-flex items-center gap-2">
            <Spinner className="size-4" label={loading} />
            <span aria-hidden="true">{loading}</span>
          </span>
        )}
        {status === 'error' && (
          <div role="alert" className="inline-flex flex-wrap items-center justify-center gap-3">
            <span>{error}</span>
            <RetryButton query={query} label={retryLabel} />
          </div>
        )}
        {status === 'empty' && empty}
      </td>
    </tr>
  );
}

/**
 * The same in place of a list of cards or anything not a table: a spinner, an alert with the
 * server's reason and a retry button, or `empty` (an EmptyState or a line of text).
 */
export function ListStatus({
  query,
  count,
  loading = 'Loading',
  error,
  empty,
  retryLabel = 'Retry',
  className,
}: {
  query: ListQuery;
  count: number;
  /** The spinner's accessible name: 'Loading studies'. */
  loading?: string;
  /** The alert's title: 'Your studies could not be loaded'. */
  error: string;
  empty: ReactNode;
  retryLabel?: string;
  className?: string;
}) {
  const status = listStatus(query, count);
  if (!status) return null;
  if (status === 'loading') {
    return (
      <div className={cn('flex justify-center py-12', className)}>
        <Spinner className="size-6" label={loading} />
      </div>
    );
  }
  if (status === 'error') {
    return (
      <Alert variant="destructive" role="alert" className={className}>
        <div className="grid gap-2">
          <AlertTitle>{error}</AlertTitle>
          <AlertDescription>{errorMessage(query.error)}</AlertDescription>
          <RetryButton query={query} label={retryLabel} />
        </div>
      </Alert>
    );
  }
  return <>{empty}</>;
}
