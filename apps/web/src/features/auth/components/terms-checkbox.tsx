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
  termsUrl,
}: {
  /** The form's id prefix: the box is `${id}-acceptTerms`, its message `${id}-acceptTerms-error`. */
  id: string;
  error?: string;
  value: boolean;
  onChange: (checked: boolean) => void;
  onBlur: () => void;
  ref?: Ref<HTMLButtonElement>;
  /** Where the terms are published (TERMS_URL); a link to them follows the box. */
  termsUrl?: string | null;
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
        {termsUrl && (
          // Beside the label, not in it: a link inside a label would also tick the box.
          <a
            href={termsUrl}
            target="_blank"
            rel="noreferrer"
            className="shrink-0 text-sm leading-snug text-primary underline-offset-4 hover:underline"
          >
            Read the terms
            <span className="sr-only"> (opens in a new tab)</span>
          </a>
        )}
      </div>
      <FieldError id={`${id}-acceptTerms-error`} message={error} />
    </div>
  );
}
