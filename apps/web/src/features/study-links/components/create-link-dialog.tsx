import { zodResolver } from '@hookform/resolvers/zod';
import {
  CHECKIN_MAX_MINUTES,
  LINK_LABEL_MAX,
  type CreatedLink,
  type LinkMode,
  type PendingLink,
} from '@mi/contracts/links';
import type { StudyListItem } from '@mi/contracts/studies';
import { useEffect, useId, useState, type ReactNode } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { Link } from 'react-router';
import { DeidentifiedOption } from '@/components/deidentify-preview';
import { SharingConsent } from '@/components/sharing-consent';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { NativeSelect } from '@/components/ui/native-select';
import { PasswordInput } from '@/components/ui/password-input';
import { paths } from '@/config/paths';
import { errorMessage } from '@/lib/api-client';
import { cn } from '@/lib/utils';
import { useCreateLink } from '../api/create-link';
import {
  CUSTOM_EXPIRY,
  DEFAULT_EXPIRY,
  LINK_MODE_LABELS,
  defaultLinkForm,
  expiryChoices,
  expiryDate,
  linkFormSchema,
  needsPasscode,
  toCreateRequest,
  toLocalInput,
  type LinkFormValues,
} from '../utils/link-policy';
import { LinkCreated } from './link-created';

const MODE_HINTS: Record<LinkMode, string> = {
  share: 'For a doctor or anyone you send it to. Asks their name, and the passcode if you set one.',
  checkin: `For the front desk: show the QR code when you arrive. Lives 15 minutes (at most ${CHECKIN_MAX_MINUTES}).`,
};

/** A de-identified link waits for its copies; the owner is told when it is on the Links page. */
function LinkPending({ message, onDone }: { message: string; onDone: () => void }) {
  return (
    <>
      <DialogHeader>
        <DialogTitle>Making de-identified copies</DialogTitle>
        <DialogDescription>{message}</DialogDescription>
      </DialogHeader>
      <DialogFooter>
        <Button asChild variant="outline">
          <Link to={paths.links}>Go to Links</Link>
        </Button>
        <Button onClick={onDone}>Done</Button>
      </DialogFooter>
    </>
  );
}

function studiesSummary(studies: StudyListItem[]): string {
  if (studies.length === 1) return studies[0]!.metadata.studyDescription || 'this study';
  return `${studies.length} studies`;
}

/**
 * My Studies → 'Share by link / QR' (a study's More menu, or a selection): the link's policy, then
 * the link itself as a large QR code to show, print or download, and as text to copy.
 */
export function CreateLinkDialog({
  studies,
  userId,
  sharingAllowed,
  onClose,
}: {
  /** The studies the link will carry; null when the dialog is closed. */
  studies: StudyListItem[] | null;
  userId: string;
  /** The user's Share Medical Records setting; off, no link can be made (the form says so). */
  sharingAllowed: boolean;
  onClose: () => void;
}) {
  const [created, setCreated] = useState<
    { link: CreatedLink; passcode: boolean } | { pending: PendingLink } | null
  >(null);
  const open = studies !== null;
  useEffect(() => {
    if (open) setCreated(null);
  }, [open]);

  return (
    <Dialog open={open} onOpenChange={(next) => !next && onClose()}>
      <DialogContent className="sm:max-w-xl">
        {created && 'pending' in created ? (
          <LinkPending message={created.pending.message} onDone={onClose} />
        ) : created ? (
          <LinkCreated created={created.link} passcodeSet={created.passcode} onDone={onClose} />
        ) : (
          studies && (
            <CreateLinkForm
              studies={studies}
              consent={
                sharingAllowed ? null : <SharingConsent userId={userId} blocked="no link can be made" />
              }
              onCancel={onClose}
              onCreated={(link, passcode) =>
                setCreated('pending' in link ? { pending: link } : { link, passcode })
              }
            />
          )
        )}
      </DialogContent>
    </Dialog>
  );
}

export function CreateLinkForm({
  studies,
  consent,
  onCancel,
  onCreated,
}: {
  studies: StudyListItem[];
  /** Shown above the form while sharing is off (SharingConsent); the form cannot be sent meanwhile. */
  consent?: ReactNode;
  onCancel: () => void;
  onCreated: (link: CreatedLink | PendingLink, passcodeSet: boolean) => void;
}) {
  const id = useId();
  const create = useCreateLink();
  const identified = studies.filter((s) => !s.deidentified);
  const {
    register,
    handleSubmit,
    control,
    setValue,
    formState: { errors },
  } = useForm<LinkFormValues>({
    resolver: zodResolver(linkFormSchema),
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: defaultLinkForm(),
  });
  const [mode, expiry, customExpiry, passcode, label, deidentified] = useWatch({
    control,
    name: ['mode', 'expiry', 'customExpiry', 'passcode', 'label', 'deidentified'],
  });

  const chooseMode = (next: LinkMode) => {
    setValue('mode', next);
    setValue('expiry', DEFAULT_EXPIRY[next]);
    setValue('customExpiry', '');
    // A check-in link has no passcode: it is opened at the desk by whoever is there.
    if (next === 'checkin') setValue('passcode', '');
  };

  const now = new Date();
  const passcodeRequired = needsPasscode(mode, expiryDate(expiry, customExpiry, now), now);
  const customMax = new Date(
    now.getTime() + (mode === 'checkin' ? CHECKIN_MAX_MINUTES * 60_000 : 365 * 24 * 3_600_000),
  );
  const field = (name: keyof LinkFormValues) => ({
    id: `${id}-${name}`,
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': [errors[name] ? `${id}-${name}-error` : '', `${id}-${name}-hint`].join(' ').trim(),
  });

  const submit = (values: LinkFormValues) =>
    create.mutate(
      toCreateRequest(
        values,
        studies.map((s) => s.id),
        new Date(),
      ),
      { onSuccess: (link) => onCreated(link, values.mode === 'share' && values.passcode !== '') },
    );

  return (
    <>
      <DialogHeader>
        <DialogTitle>Share by link / QR</DialogTitle>
        <DialogDescription>
          A link or QR code that opens{' '}
          <span className="font-medium text-foreground">{studiesSummary(studies)}</span> without an account.
          You see every open and can end it at any time.
        </DialogDescription>
      </DialogHeader>
      {consent}
      <form noValidate className="grid gap-5" aria-label="Share by link / QR" onSubmit={handleSubmit(submit)}>
        <fieldset className="grid gap-2">
          <legend className="mb-2 text-sm font-medium">Kind of link</legend>
          <div className="grid gap-2 sm:grid-cols-2">
            {(['share', 'checkin'] as const).map((value) => (
              <label
                key={value}
                className={cn(
                  'flex cursor-pointer gap-3 rounded-md border p-3 text-sm has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-ring',
                  mode === value && 'border-primary bg-accent',
                )}
              >
                <input
                  type="radio"
                  name={`${id}-mode`}
                  value={value}
                  checked={mode === value}
                  onChange={() => chooseMode(value)}
                  className="mt-0.5 size-4 accent-[var(--color-primary)]"
                />
                <span className="grid gap-0.5">
                  <span className="font-medium">{LINK_MODE_LABELS[value]}</span>
                  <span className="text-muted-foreground">{MODE_HINTS[value]}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>

        <div className="grid gap-2">
          <Label htmlFor={`${id}-expiry`}>Expires after</Label>
          <NativeSelect {...field('expiry')} {...register('expiry')}>
            {expiryChoices(mode).map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
            <option value={CUSTOM_EXPIRY}>Custom date and time…</option>
          </NativeSelect>
          {expiry === CUSTOM_EXPIRY && (
            <>
              <Label htmlFor={`${id}-customExpiry`} className="sr-only">
                Expires on
              </Label>
              <Input
                type="datetime-local"
                min={toLocalInput(now)}
                max={toLocalInput(customMax)}
                {...field('customExpiry')}
                {...register('customExpiry')}
              />
            </>
          )}
          <p id={`${id}-expiry-hint`} className="text-xs text-muted-foreground">
            {mode === 'checkin'
              ? `A check-in link lasts at most ${CHECKIN_MAX_MINUTES} minutes.`
              : 'After this the link stops working. You can end it earlier or extend it on the Links page.'}
          </p>
          <FieldError id={`${id}-expiry-error`} message={errors.expiry?.message} />
          <FieldError id={`${id}-customExpiry-error`} message={errors.customExpiry?.message} />
        </div>

        {mode === 'share' && (
          <div className="grid gap-2">
            <Label htmlFor={`${id}-passcode`}>
              Passcode{' '}
              <span className="font-normal text-muted-foreground">
                {passcodeRequired ? '(required for more than 24 hours)' : '(optional)'}
              </span>
            </Label>
            <PasswordInput
              autoComplete="new-password"
              aria-required={passcodeRequired || undefined}
              {...field('passcode')}
              {...register('passcode')}
            />
            <p id={`${id}-passcode-hint`} className="text-xs text-muted-foreground">
              {passcode
                ? 'Send the passcode separately from the link, for example by phone.'
                : 'Whoever opens the link must type it. Wrong guesses are limited.'}
            </p>
            <FieldError id={`${id}-passcode-error`} message={errors.passcode?.message} />
          </div>
        )}

        <div className="grid gap-4 sm:grid-cols-2">
          <div className="grid content-start gap-2">
            <Label htmlFor={`${id}-maxOpens`}>
              Maximum opens <span className="font-normal text-muted-foreground">(optional)</span>
            </Label>
            <Input
              type="number"
              inputMode="numeric"
              min={1}
              step={1}
              placeholder="No limit"
              {...field('maxOpens')}
              {...register('maxOpens')}
            />
            <p id={`${id}-maxOpens-hint`} className="sr-only">
              Leave empty for no limit.
            </p>
            <FieldError id={`${id}-maxOpens-error`} message={errors.maxOpens?.message} />
          </div>
          <div className="grid content-start gap-2">
            <Label htmlFor={`${id}-label`}>
              Label <span className="font-normal text-muted-foreground">(optional)</span>
            </Label>
            <Input
              placeholder="For example: Dr Rivera, knee MRI"
              {...field('label')}
              {...register('label')}
            />
            <p id={`${id}-label-hint`} className="text-xs text-muted-foreground">
              Shown to the recipient. {label.trim().length}/{LINK_LABEL_MAX}
            </p>
            <FieldError id={`${id}-label-error`} message={errors.label?.message} />
          </div>
        </div>

        <div className="flex items-start gap-3">
          <Controller
            control={control}
            name="allowDownload"
            render={({ field: f }) => (
              <Checkbox
                id={`${id}-allowDownload`}
                checked={f.value}
                onCheckedChange={(checked) => f.onChange(checked === true)}
                aria-describedby={`${id}-allowDownload-hint`}
                className="mt-0.5"
              />
            )}
          />
          <div className="grid gap-0.5">
            <Label htmlFor={`${id}-allowDownload`}>Allow download</Label>
            <p id={`${id}-allowDownload-hint`} className="text-xs text-muted-foreground">
              The recipient may also download the images as a ZIP file. Otherwise they can only view them.
            </p>
          </div>
        </div>

        {/* Studies that are de-identified copies already are linked as they are. */}
        {identified[0] && (
          <DeidentifiedOption
            studyId={identified[0].id}
            several={identified.length > 1}
            label="Link to de-identified copies"
            checked={deidentified}
            disabled={create.isPending}
            onCheckedChange={(next) => setValue('deidentified', next)}
          />
        )}

        {create.isError && (
          <Alert variant="destructive">
            <AlertDescription>
              {errorMessage(create.error, 'The link could not be created. Please try again.')}
            </AlertDescription>
          </Alert>
        )}

        <DialogFooter>
          <Button type="button" variant="outline" onClick={onCancel} disabled={create.isPending}>
            Cancel
          </Button>
          <Button
            type="submit"
            disabled={create.isPending || !!consent}
            aria-busy={create.isPending || undefined}
          >
            {create.isPending ? 'Creating link…' : 'Create link'}
          </Button>
        </DialogFooter>
      </form>
    </>
  );
}
