import { zodResolver } from '@hookform/resolvers/zod';
import type { ProfessionalProfile, ProfessionalProfileInput } from '@mi/contracts/directory';
import { Plus, Trash2 } from 'lucide-react';
import { useEffect, useId, type ReactNode } from 'react';
import { useFieldArray, useForm, type FieldError as FormFieldError } from 'react-hook-form';
import { Button } from '@/components/ui/button';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Textarea } from '@/components/ui/textarea';
import { cn } from '@/lib/utils';
import {
  MAX_CREDENTIALS,
  profileFormSchema,
  toProfileForm,
  toProfileInput,
  type ProfileFormOutput,
  type ProfileFormValues,
} from '../utils/profile-form';

function Field({
  label,
  hint,
  error,
  className,
  children,
}: {
  label: string;
  hint?: string;
  error?: FormFieldError;
  className?: string;
  children: (props: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }) => ReactNode;
}) {
  const id = useId();
  const describedBy = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  return (
    <div className={cn('grid content-start gap-1.5', className)}>
      <Label htmlFor={id}>{label}</Label>
      {children({
        id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': describedBy || undefined,
      })}
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-muted-foreground">
          {hint}
        </p>
      )}
      <FieldError id={`${id}-error`} message={error?.message} />
    </div>
  );
}

function Group({
  title,
  description,
  children,
}: {
  title: string;
  description?: string;
  children: ReactNode;
}) {
  return (
    <fieldset className="grid gap-3 rounded-md border p-4">
      <legend className="px-1 text-sm font-semibold">{title}</legend>
      {description && <p className="-mt-1 text-xs text-muted-foreground">{description}</p>}
      {children}
    </fieldset>
  );
}

/**
 * What a professional completes before publishing: description, experience, credentials, working
 * hours, location and the contact details they choose to show. Checked with the server's rules
 * before it is sent.
 */
export function ProfileForm({
  profile,
  saving,
  onSave,
  onDirtyChange,
}: {
  profile: ProfessionalProfile;
  saving: boolean;
  /** Resolves once saved (the form then starts from what was saved). */
  onSave: (input: ProfessionalProfileInput) => Promise<unknown>;
  onDirtyChange?: (dirty: boolean) => void;
}) {
  const {
    register,
    control,
    handleSubmit,
    reset,
    formState: { errors, isDirty },
  } = useForm<ProfileFormValues, unknown, ProfileFormOutput>({
    resolver: zodResolver(profileFormSchema),
    defaultValues: toProfileForm(profile),
  });
  const credentials = useFieldArray({ control, name: 'credentials' });
  const credentialIds = useId();
  useEffect(() => onDirtyChange?.(isDirty), [isDirty, onDirtyChange]);

  const onSubmit = handleSubmit(async (values) => {
    const input = toProfileInput(values);
    try {
      await onSave(input);
      reset({ ...values, credentials: input.credentials.map((value) => ({ value })) });
    } catch {
      // onSave told the user why; the form keeps what they typed.
    }
  });

  return (
    <form className="grid gap-4" onSubmit={onSubmit} noValidate aria-label="Directory profile">
      <Group title="About you">
        <Field
          label="Description"
          hint="What you read and how you work: shown at the top of your profile."
          error={errors.description}
        >
          {(a) => <Textarea {...a} rows={5} {...register('description')} />}
        </Field>
        <Field label="Years of experience" error={errors.yearsOfExperience} className="sm:max-w-48">
          {(a) => <Input {...a} inputMode="numeric" {...register('yearsOfExperience')} />}
        </Field>
        <div className="grid gap-2">
          <p className="text-sm font-medium" id={`${credentialIds}-label`}>
            Credentials
          </p>
          {credentials.fields.length === 0 && (
            <p className="text-sm text-muted-foreground">No credentials yet (for example Board Certified).</p>
          )}
          <ul className="grid gap-2" aria-labelledby={`${credentialIds}-label`}>
            {credentials.fields.map((field, i) => {
              const error = errors.credentials?.[i]?.value;
              const id = `${credentialIds}-${field.id}`;
              return (
                <li key={field.id} className="grid gap-1">
                  <div className="flex gap-2">
                    <Label htmlFor={id} className="sr-only">
                      Credential {i + 1}
                    </Label>
                    <Input
                      id={id}
                      aria-invalid={error ? true : undefined}
                      aria-describedby={error ? `${id}-error` : undefined}
                      {...register(`credentials.${i}.value`)}
                    />
                    <Button
                      variant="outline"
                      size="icon"
                      className="shrink-0"
                      aria-label={`Remove credential number ${i + 1}`}
                      onClick={() => credentials.remove(i)}
                    >
                      <Trash2 aria-hidden="true" />
                    </Button>
                  </div>
                  <FieldError id={`${id}-error`} message={error?.message} />
                </li>
              );
            })}
          </ul>
          <FieldError id={`${credentialIds}-error`} message={errors.credentials?.root?.message} />
          <Button
            variant="outline"
            size="sm"
            className="w-fit"
            disabled={credentials.fields.length >= MAX_CREDENTIALS}
            onClick={() => credentials.append({ value: '' })}
          >
            <Plus aria-hidden="true" /> Add credential
          </Button>
        </div>
      </Group>
      <Group title="Working hours">
        <div className="grid gap-3 sm:grid-cols-2">
          <Field label="Weekdays" error={errors.workingHours?.weekdays}>
            {(a) => <Input {...a} placeholder="9:00-17:00" {...register('workingHours.weekdays')} />}
          </Field>
          <Field label="Weekends" error={errors.workingHours?.weekends}>
            {(a) => <Input {...a} placeholder="Closed" {...register('workingHours.weekends')} />}
          </Field>
        </div>
      </Group>
      <Group title="Location">
        <div className="grid gap-3 sm:grid-cols-2">
          <Field label="Street" error={errors.location?.street} className="sm:col-span-2">
            {(a) => <Input {...a} autoComplete="street-address" {...register('location.street')} />}
          </Field>
          <Field label="City" error={errors.location?.city}>
            {(a) => <Input {...a} autoComplete="address-level2" {...register('location.city')} />}
          </Field>
          <Field label="State / region" error={errors.location?.state}>
            {(a) => <Input {...a} autoComplete="address-level1" {...register('location.state')} />}
          </Field>
          <Field label="Postal code" error={errors.location?.zipCode}>
            {(a) => <Input {...a} autoComplete="postal-code" {...register('location.zipCode')} />}
          </Field>
          <Field label="Country" error={errors.location?.country}>
            {(a) => <Input {...a} autoComplete="country-name" {...register('location.country')} />}
          </Field>
        </div>
      </Group>
      <Group
        title="Contact details shown in the directory"
        description="Each is optional and shown to everyone who can see the directory. Your account email is never shown unless you enter it here."
      >
        <div className="grid gap-3 sm:grid-cols-2">
          <Field label="Contact email" error={errors.contact?.email}>
            {(a) => <Input {...a} type="email" autoComplete="email" {...register('contact.email')} />}
          </Field>
          <Field label="Contact phone" error={errors.contact?.mobile}>
            {(a) => <Input {...a} type="tel" autoComplete="tel" {...register('contact.mobile')} />}
          </Field>
          <Field label="Website" error={errors.contact?.website} className="sm:col-span-2">
            {(a) => (
              <Input
                {...a}
                type="url"
                placeholder="https://"
                autoComplete="url"
                {...register('contact.website')}
              />
            )}
          </Field>
        </div>
      </Group>
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={saving}>
          {saving ? 'Saving...' : 'Save profile'}
        </Button>
        {isDirty && !saving && (
          <span className="text-sm text-muted-foreground" role="status">
            Unsaved changes
          </span>
        )}
      </div>
    </form>
  );
}
