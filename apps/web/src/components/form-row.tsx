import type { ReactNode } from 'react';
import { FieldError } from '@/components/ui/field-error';
import { Label } from '@/components/ui/label';

/** A labelled field with its error; ids follow `${id}-${name}` so inputs and messages pair up. */
export function FormRow({
  label,
  name,
  id,
  error,
  children,
}: {
  label: ReactNode;
  name: string;
  id: string;
  error?: string;
  children: ReactNode;
}) {
  return (
    <div className="grid gap-2">
      <Label htmlFor={`${id}-${name}`}>{label}</Label>
      {children}
      <FieldError id={`${id}-${name}-error`} message={error} />
    </div>
  );
}
