import { useId, type ReactNode } from 'react';
import type { FieldError as FormFieldError } from 'react-hook-form';
import { FieldError } from '@/components/ui/field-error';
import { Label } from '@/components/ui/label';
import { cn } from '@/lib/utils';

/** What a field's control gets: its id, and whether and where its error is. */
export interface FieldControlProps {
  id: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

/**
 * A labelled field of an admin form with its validation error under it; `children` renders the
 * control with the props that tie it to the label and the error.
 */
export function FormField({
  label,
  error,
  className,
  children,
}: {
  label: string;
  error?: FormFieldError;
  className?: string;
  children: (props: FieldControlProps) => ReactNode;
}) {
  const id = useId();
  return (
    <div className={cn('grid gap-1.5', className)}>
      <Label htmlFor={id}>{label}</Label>
      {children({
        id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': error ? `${id}-error` : undefined,
      })}
      <FieldError id={`${id}-error`} message={error?.message} />
    </div>
  );
}
