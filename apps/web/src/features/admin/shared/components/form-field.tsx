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
  'aria-required'?: boolean;
}

/**
 * A labelled field of an admin form with its validation error under it; `children` renders the
 * control with the props that tie it to the label and the error. A `required` field is marked with
 * an asterisk beside its label (read out as "required" through aria-required, not as a star).
 */
export function FormField({
  label,
  error,
  className,
  required = false,
  children,
}: {
  label: string;
  error?: FormFieldError;
  required?: boolean;
  className?: string;
  children: (props: FieldControlProps) => ReactNode;
}) {
  const id = useId();
  return (
    <div className={cn('grid gap-1.5', className)}>
      <div className="flex gap-1">
        <Label htmlFor={id}>{label}</Label>
        {required && (
          <span aria-hidden="true" className="text-sm leading-none text-destructive">
            *
          </span>
        )}
      </div>
      {children({
        id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': error ? `${id}-error` : undefined,
        ...(required ? { 'aria-required': true } : {}),
      })}
      <FieldError id={`${id}-error`} message={error?.message} />
    </div>
  );
}
