import { cn } from '@/lib/utils';

/** A form field's validation message; give the input aria-describedby={id}. */
export function FieldError({ id, message, className }: { id: string; message?: string; className?: string }) {
  if (!message) return null;
  return (
    <p id={id} className={cn('text-sm text-destructive', className)}>
      {message}
    </p>
  );
}
