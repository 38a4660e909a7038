import type { Ref } from 'react';
import { Checkbox } from '@/components/ui/checkbox';
import { FieldError } from '@/components/ui/field-error';
import { Label } from '@/components/ui/label';

/** The registration forms' terms acceptance, wired to react-hook-form through a Controller. */
export function TermsCheckbox({
  id,
  error,
  value,
  onChange,
  onBlur,
  ref,
}: {
  /** The form's id prefix: the box is `${id}-acceptTerms`, its message `${id}-acceptTerms-error`. */
  id: string;
  error?: string;
  value: boolean;
  onChange: (checked: boolean) => void;
  onBlur: () => void;
  ref?: Ref<HTMLButtonElement>;
}) {
  return (
    <div className="grid gap-2">
      <div className="flex items-start gap-3">
        <Checkbox
          ref={ref}
          id={`${id}-acceptTerms`}
          checked={value}
          onCheckedChange={(checked) => onChange(checked === true)}
          onBlur={onBlur}
          className="mt-0.5"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-acceptTerms-error` : undefined}
        />
        <Label htmlFor={`${id}-acceptTerms`} className="leading-snug font-normal">
          I accept the terms and conditions
        </Label>
      </div>
      <FieldError id={`${id}-acceptTerms-error`} message={error} />
    </div>
  );
}
