import { Star } from 'lucide-react';
import { useId, useState } from 'react';
import { cn } from '@/lib/utils';

const STAR_LABELS = ['1 star', '2 stars', '3 stars', '4 stars', '5 stars'] as const;

/**
 * 1 to 5 stars as a native radio group (arrow keys move between stars, Space picks one): each
 * radio is named '1 star' … '5 stars'; the stars up to the chosen or hovered one are filled.
 */
export function StarRatingInput({
  value,
  onChange,
  legend,
  name,
  invalid = false,
  describedBy,
  disabled = false,
}: {
  value: number | undefined;
  onChange: (stars: number) => void;
  legend: string;
  name?: string;
  invalid?: boolean;
  describedBy?: string;
  disabled?: boolean;
}) {
  const id = useId();
  const group = name ?? `${id}-stars`;
  const [hovered, setHovered] = useState<number | null>(null);
  const shown = hovered ?? value ?? 0;
  return (
    <fieldset
      className="grid gap-2"
      aria-invalid={invalid || undefined}
      aria-describedby={describedBy}
      disabled={disabled}
    >
      <legend className="mb-2 text-sm font-medium">{legend}</legend>
      <div className="flex items-center gap-1" onMouseLeave={() => setHovered(null)}>
        {STAR_LABELS.map((label, i) => {
          const stars = i + 1;
          const inputId = `${id}-${stars}`;
          return (
            // The radio lies, transparent, over its star: clicks, taps and automation reach the
            // input itself, and the star below shows the state.
            <span key={stars} className="relative flex" onMouseEnter={() => setHovered(stars)}>
              <input
                id={inputId}
                type="radio"
                name={group}
                value={stars}
                checked={value === stars}
                onChange={() => onChange(stars)}
                className="peer absolute inset-0 z-10 m-0 size-full cursor-pointer appearance-none opacity-0 disabled:cursor-not-allowed"
              />
              <label
                htmlFor={inputId}
                className={cn(
                  'flex rounded-md p-1 transition-colors',
                  'peer-focus-visible:ring-2 peer-focus-visible:ring-ring peer-focus-visible:ring-offset-2',
                  'peer-disabled:opacity-50',
                )}
              >
                <Star
                  className={cn(
                    'size-7',
                    stars <= shown ? 'fill-amber-400 text-amber-500' : 'text-muted-foreground',
                  )}
                  aria-hidden="true"
                />
                <span className="sr-only">{label}</span>
              </label>
            </span>
          );
        })}
        <span className="ml-2 text-sm text-muted-foreground" aria-hidden="true">
          {value ? `${value} of 5` : ''}
        </span>
      </div>
    </fieldset>
  );
}
