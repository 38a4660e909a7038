import { Archive, ArchiveRestore, Pencil, RefreshCw } from 'lucide-react';
import { Button, type ButtonProps } from '@/components/ui/button';
import { cn } from '@/lib/utils';

/** An admin list's Refresh: refetches the list, its icon spinning while it does. */
export function RefreshButton({ query }: { query: { refetch: () => unknown; isFetching: boolean } }) {
  return (
    <Button
      variant="outline"
      size="sm"
      className="h-10"
      onClick={() => query.refetch()}
      disabled={query.isFetching}
    >
      <RefreshCw aria-hidden="true" className={cn(query.isFetching && 'animate-spin')} /> Refresh
    </Button>
  );
}

type RowActionProps = Omit<ButtonProps, 'children' | 'size' | 'variant'>;

/** A record's Edit, named by the record ('Edit …') since a list shows one a row. */
export function EditButton({ name, ...props }: RowActionProps & { name: string }) {
  return (
    <Button size="sm" variant="outline" aria-label={`Edit ${name}`} {...props}>
      <Pencil aria-hidden="true" /> Edit
    </Button>
  );
}

/** Retire, in red as it takes the record out of use; Restore undoes it. */
export function RetireButton({ className, ...props }: RowActionProps) {
  return (
    <Button
      size="sm"
      variant="outline"
      className={cn(className, 'text-destructive hover:bg-destructive/10 hover:text-destructive')}
      {...props}
    >
      <Archive aria-hidden="true" /> Retire
    </Button>
  );
}

export function RestoreButton(props: RowActionProps) {
  return (
    <Button size="sm" variant="outline" {...props}>
      <ArchiveRestore aria-hidden="true" /> Restore
    </Button>
  );
}
