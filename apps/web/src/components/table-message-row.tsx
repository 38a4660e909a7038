import type { ReactNode } from 'react';
import { cn } from '@/lib/utils';

/** The one row a table shows instead of its rows: loading, nothing found, or why it failed. */
export function TableMessageRow({
  columns,
  error = false,
  children,
}: {
  columns: number;
  error?: boolean;
  children: ReactNode;
}) {
  return (
    <tr>
      <td
        colSpan={columns}
        className={cn('px-3 py-6 text-center', error ? 'text-destructive' : 'text-muted-foreground')}
      >
        {children}
      </td>
    </tr>
  );
}
