import { zodResolver } from '@hookform/resolvers/zod';
import { SPECIALTIES } from '@mi/contracts/rules';
import {
  linkProviderBodySchema,
  providerInputSchema,
  type AdminProvider,
  type ProviderInput,
} from '@mi/contracts/sharing';
import { vendorWebhookBodySchema } from '@mi/contracts/vendors';
import { Bot, KeyRound, Link2, Plus, Stethoscope, Unlink } from 'lucide-react';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { listStatus, ListStatus } from '@/components/list/list-status';
import { EmptyState } from '@/components/empty-state';
import {
  DemoBadge,
  ProviderKindBadge,
  RatingSummary,
  specialtyLabel,
  VerifiedBadge,
} from '@/components/provider-trust';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
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
import { Textarea } from '@/components/ui/textarea';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { cn } from '@/lib/utils';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import {
  useChangeProvider,
  useChangeVendor,
  type ProviderChange,
  type VendorChange,
} from '../api/admin-providers';
import { useAdminProviders } from '../../shared/api/admin-providers';
import { saveRecord } from '../../shared/api/record-changes';
import { FormDialog, recordFormKey, type RecordDraft } from '../../shared/components/form-dialog';
import { FormField } from '../../shared/components/form-field';
import { EditButton, RefreshButton, RestoreButton, RetireButton } from '../../shared/components/list-actions';
import { savedToasts, toastFailure } from '../../shared/utils/change-toasts';

// The server's schema, with credentials typed as one comma-separated line.
const providerFormSchema = providerInputSchema.omit({ credentials: true }).extend({
  credentials: z.string().trim().max(2000),
});
type ProviderFormValues = z.infer<typeof providerFormSchema>;
type LinkValues = z.infer<typeof linkProviderBodySchema>;

const EMPTY_FORM: ProviderFormValues = {
  name: '',
  specialty: '',
  description: '',
  yearsOfExperience: '',
  credentials: '',
  location: { street: '', city: '', state: '', zipCode: '', country: '' },
  academicProfile: { rank: '', numberOfPublications: 0 },
  contactInformation: { email: '', mobile: '', website: '' },
  workingHours: { weekdays: '', weekends: '' },
};

function toForm(p: AdminProvider): ProviderFormValues {
  return {
    name: p.name,
    specialty: p.specialty ?? '',
    description: p.description ?? '',
    yearsOfExperience: p.yearsOfExperience ?? '',
    credentials: p.credentials.join(', '),
    location: p.location ?? EMPTY_FORM.location,
    academicProfile: p.academicProfile ?? EMPTY_FORM.academicProfile,
    contactInformation: {
      email: p.contactInformation.email,
      mobile: p.contactInformation.mobile ?? '',
      website: p.contactInformation.website ?? '',
    },
    workingHours: p.workingHours ?? EMPTY_FORM.workingHours,
  };
}

function toInput(values: ProviderFormValues): ProviderInput {
  return {
    ...values,
    credentials: values.credentials
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean),
  };
}

/** An organisation sells only once a verified professional is linked to it or it has a vendor webhook. */
function cannotSell(p: AdminProvider): boolean {
  return p.kind === 'organisation' && !p.retiredAt && !p.linkedUser && !p.vendor;
}

/**
 * Admin → Providers: the directory users search on /providers. Admins add and edit organisations;
 * professionals' own profiles (theirs to edit) and the platform's automated analysis are listed
 * too, with their kind.
 */
export function ProvidersAdmin() {
  const providers = useAdminProviders();
  const change = useChangeProvider();
  const [editing, setEditing] = useState<RecordDraft<AdminProvider>>(null);
  const [linking, setLinking] = useState<AdminProvider | null>(null);
  const [vendorOf, setVendorOf] = useState<string | null>(null);
  const list = providers.data ?? [];

  const act = (c: ProviderChange, title: string) => change.mutate(c, savedToasts(title));

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-end justify-between gap-3 space-y-0">
        <div>
          <CardTitle>Providers</CardTitle>
          <CardDescription>
            The directory users search under Healthcare Providers: verified professionals&apos; own profiles,
            the organisations you add, and the platform&apos;s automated analysis. An organisation sells
            nothing until a verified professional is linked to it or it has an AI vendor webhook; ratings come
            from patients.
          </CardDescription>
        </div>
        <div className="flex gap-2">
          <RefreshButton query={providers} />
          <Button size="sm" className="h-10" onClick={() => setEditing('new')}>
            <Plus aria-hidden="true" /> New Organisation
          </Button>
        </div>
      </CardHeader>
      <CardContent>
        <ListStatus
          query={providers}
          count={list.length}
          error="The directory could not be loaded"
          empty={
            <EmptyState icon={Stethoscope} title="No providers">
              Add the first provider of the directory.
            </EmptyState>
          }
        />
        {listStatus(providers, list.length) === null && (
          <ul className="grid gap-3" aria-label="Directory providers">
            {list.map((p) => (
              <li
                key={p.id}
                className={cn('rounded-md border p-4', p.retiredAt && 'bg-muted/40')}
                aria-label={p.name}
              >
                <div className="flex flex-wrap items-center gap-2">
                  <span className="font-medium">{p.name}</span>
                  <ProviderKindBadge kind={p.kind} all />
                  {specialtyLabel(p) && <Badge variant="secondary">{specialtyLabel(p)}</Badge>}
                  {p.verified && <VerifiedBadge verified={p.verified} />}
                  {p.demo && <DemoBadge />}
                  {p.retiredAt && <Badge variant="outline">Retired</Badge>}
                  {p.linkedUser && p.kind === 'organisation' && <Badge>Linked</Badge>}
                  {p.vendor && <Badge variant="outline">External AI vendor</Badge>}
                </div>
                {cannotSell(p) && (
                  <p className="mt-1 text-sm text-amber-800">
                    Sells nothing yet: link a verified professional or set an AI vendor webhook.
                  </p>
                )}
                <dl className="mt-2 grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
                  <dt className="text-muted-foreground">Email</dt>
                  <dd className="break-all">{p.contactInformation.email || '—'}</dd>
                  <dt className="text-muted-foreground">Location</dt>
                  <dd>{[p.location?.city, p.location?.country].filter(Boolean).join(', ') || '—'}</dd>
                  <dt className="text-muted-foreground">Rating</dt>
                  <dd>
                    <RatingSummary rating={p.rating} count={p.ratingCount} />
                  </dd>
                  <dt className="text-muted-foreground">Account</dt>
                  <dd className="break-all">
                    {p.linkedUser
                      ? `${p.linkedUser.name ?? 'Unnamed'} (${p.linkedUser.email})`
                      : 'Not linked'}
                  </dd>
                  {p.vendor && (
                    <>
                      <dt className="text-muted-foreground">Vendor webhook</dt>
                      <dd className="break-all">{p.vendor.webhookUrl}</dd>
                    </>
                  )}
                </dl>
                {p.kind === 'professional' && (
                  <p className="mt-2 text-xs text-muted-foreground">
                    A professional&apos;s own profile: they edit and publish it from their Directory Profile.
                  </p>
                )}
                <div className="mt-3 flex flex-wrap gap-2">
                  {p.kind !== 'professional' && <EditButton name={p.name} onClick={() => setEditing(p)} />}
                  {p.kind !== 'organisation' ? null : p.linkedUser ? (
                    <Button
                      size="sm"
                      variant="outline"
                      disabled={change.isPending}
                      onClick={() => act({ kind: 'unlink', id: p.id }, 'Provider unlinked')}
                    >
                      <Unlink aria-hidden="true" /> Unlink
                    </Button>
                  ) : (
                    <Button size="sm" variant="outline" onClick={() => setLinking(p)}>
                      {/* Named by what it shows, then which provider ('Link account to …'). */}
                      <Link2 aria-hidden="true" /> Link account<span className="sr-only"> to {p.name}</span>
                    </Button>
                  )}
                  {p.kind === 'organisation' && (
                    <Button
                      size="sm"
                      variant="outline"
                      onClick={() => setVendorOf(p.id)}
                      aria-label={`AI vendor settings of ${p.name}`}
                    >
                      <Bot aria-hidden="true" /> AI vendor
                    </Button>
                  )}
                  {p.retiredAt ? (
                    <RestoreButton
                      disabled={change.isPending}
                      onClick={() => act({ kind: 'restore', id: p.id }, 'Provider restored')}
                    />
                  ) : (
                    <RetireButton
                      disabled={change.isPending}
                      onClick={() => act({ kind: 'retire', id: p.id }, 'Provider retired')}
                      aria-label={`Retire ${p.name}`}
                    />
                  )}
                </div>
              </li>
            ))}
          </ul>
        )}
      </CardContent>
      <ProviderFormDialog key={recordFormKey(editing)} provider={editing} onClose={() => setEditing(null)} />
      <LinkDialog provider={linking} onClose={() => setLinking(null)} />
      <VendorDialog
        key={vendorOf ?? 'closed'}
        provider={list.find((p) => p.id === vendorOf) ?? null}
        onClose={() => setVendorOf(null)}
      />
    </Card>
  );
}

function ProviderFormDialog({
  provider,
  onClose,
}: {
  provider: RecordDraft<AdminProvider>;
  onClose: () => void;
}) {
  const change = useChangeProvider();
  const listId = useId();
  const isNew = provider === 'new';
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<ProviderFormValues>({
    resolver: zodResolver(providerFormSchema),
    defaultValues: provider && provider !== 'new' ? toForm(provider) : EMPTY_FORM,
  });

  const onSubmit = (values: ProviderFormValues) => {
    if (!provider) return;
    change.mutate(
      saveRecord(provider, toInput(values)),
      savedToasts(isNew ? 'Organisation created' : 'Organisation updated', onClose),
    );
  };

  return (
    <FormDialog
      open={provider !== null}
      onClose={onClose}
      onSubmit={handleSubmit(onSubmit)}
      title={isNew ? 'New Organisation' : 'Edit Organisation'}
      description="A clinic, teleradiology group or AI vendor. Every field is shown to users in Provider Details; its rating comes from patients."
      submitLabel={isNew ? 'Create Organisation' : 'Save Changes'}
      pending={change.isPending}
      className="max-w-3xl"
    >
      <div className="grid gap-3 sm:grid-cols-2">
        <FormField label="Name" required error={errors.name}>
          {(a) => <Input {...a} {...register('name')} />}
        </FormField>
        <FormField label="Specialty" required error={errors.specialty}>
          {(a) => <Input {...a} list={listId} {...register('specialty')} />}
        </FormField>
        <datalist id={listId}>
          {SPECIALTIES.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
        <FormField label="Description" error={errors.description} className="sm:col-span-2">
          {(a) => <Textarea {...a} rows={3} {...register('description')} />}
        </FormField>
        <FormField label="Years of experience" required error={errors.yearsOfExperience}>
          {(a) => <Input {...a} inputMode="numeric" {...register('yearsOfExperience')} />}
        </FormField>
        <FormField label="Credentials (comma-separated)" error={errors.credentials} className="sm:col-span-2">
          {(a) => <Input {...a} {...register('credentials')} />}
        </FormField>
        <FormField label="Street" error={errors.location?.street}>
          {(a) => <Input {...a} {...register('location.street')} />}
        </FormField>
        <FormField label="City" required error={errors.location?.city}>
          {(a) => <Input {...a} {...register('location.city')} />}
        </FormField>
        <FormField label="State / region" error={errors.location?.state}>
          {(a) => <Input {...a} {...register('location.state')} />}
        </FormField>
        <FormField label="Postal code" error={errors.location?.zipCode}>
          {(a) => <Input {...a} {...register('location.zipCode')} />}
        </FormField>
        <FormField label="Country" required error={errors.location?.country}>
          {(a) => <Input {...a} {...register('location.country')} />}
        </FormField>
        <FormField label="Academic rank" error={errors.academicProfile?.rank}>
          {(a) => <Input {...a} {...register('academicProfile.rank')} />}
        </FormField>
        <FormField label="Publications" error={errors.academicProfile?.numberOfPublications}>
          {(a) => (
            <Input
              {...a}
              type="number"
              min={0}
              {...register('academicProfile.numberOfPublications', { valueAsNumber: true })}
            />
          )}
        </FormField>
        <FormField label="Email" required error={errors.contactInformation?.email}>
          {(a) => <Input {...a} type="email" {...register('contactInformation.email')} />}
        </FormField>
        <FormField label="Mobile" error={errors.contactInformation?.mobile}>
          {(a) => <Input {...a} type="tel" {...register('contactInformation.mobile')} />}
        </FormField>
        <FormField label="Website" error={errors.contactInformation?.website}>
          {(a) => (
            <Input {...a} type="url" placeholder="https://" {...register('contactInformation.website')} />
          )}
        </FormField>
        <FormField label="Working hours: weekdays" error={errors.workingHours?.weekdays}>
          {(a) => <Input {...a} {...register('workingHours.weekdays')} />}
        </FormField>
        <FormField label="Working hours: weekends" error={errors.workingHours?.weekends}>
          {(a) => <Input {...a} {...register('workingHours.weekends')} />}
        </FormField>
      </div>
    </FormDialog>
  );
}

function LinkDialog({ provider, onClose }: { provider: AdminProvider | null; onClose: () => void }) {
  const id = useId();
  const change = useChangeProvider();
  const {
    register,
    handleSubmit,
    reset,
    setError,
    formState: { errors },
  } = useForm<LinkValues>({ resolver: zodResolver(linkProviderBodySchema), defaultValues: { email: '' } });
  const close = () => {
    reset();
    onClose();
  };
  const onSubmit = ({ email }: LinkValues) => {
    if (!provider) return;
    change.mutate(
      { kind: 'link', id: provider.id, email },
      {
        onSuccess: (res) => {
          toast({ title: 'Provider linked', description: `${res.data.name} is now ${email}'s account.` });
          close();
        },
        onError: (err) => setError('email', { type: 'server', message: errorMessage(err) }),
      },
    );
  };
  const error = errors.email?.message;
  return (
    <FormDialog
      open={provider !== null}
      onClose={close}
      onSubmit={handleSubmit(onSubmit)}
      title="Link to a professional account"
      description={
        <>
          Studies shared with {provider?.name} will reach this account. It must be an approved medical
          professional who has confirmed their email.
        </>
      }
      submitLabel="Link Account"
      pending={change.isPending}
    >
      <div className="grid gap-2">
        <Label htmlFor={`${id}-email`}>Account email</Label>
        <Input
          id={`${id}-email`}
          type="email"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-email-error` : undefined}
          {...register('email')}
        />
        <FieldError id={`${id}-email-error`} message={error} />
      </div>
    </FormDialog>
  );
}

type VendorValues = z.infer<typeof vendorWebhookBodySchema>;

/**
 * An external AI vendor's settings: the webhook its orders are sent to and the signing secret both
 * sides sign with (shown once, when made or rotated; the server keeps it sealed).
 */
function VendorDialog({ provider, onClose }: { provider: AdminProvider | null; onClose: () => void }) {
  const id = useId();
  const change = useChangeVendor();
  const [secret, setSecret] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<VendorValues>({
    resolver: zodResolver(vendorWebhookBodySchema),
    defaultValues: { webhookUrl: provider?.vendor?.webhookUrl ?? '' },
  });
  const run = (c: VendorChange, title: string) =>
    change.mutate(c, {
      onSuccess: (res) => {
        if (res.data.secret) setSecret(res.data.secret);
        toast({ title, description: provider?.name });
      },
      onError: (err) =>
        c.kind === 'set'
          ? setError('webhookUrl', { type: 'server', message: errorMessage(err) })
          : toastFailure(err),
    });
  const onSubmit = ({ webhookUrl }: VendorValues) => {
    if (provider) run({ kind: 'set', id: provider.id, webhookUrl }, 'Vendor webhook saved');
  };
  const copy = async () => {
    if (!secret) return;
    try {
      await navigator.clipboard.writeText(secret);
      toast({ title: 'Copied', description: 'Signing secret copied to clipboard.' });
    } catch {
      toastError('Could not copy. Select the secret and copy it by hand.');
    }
  };
  const error = errors.webhookUrl?.message;
  return (
    <Dialog open={provider !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="max-w-2xl">
        <form onSubmit={handleSubmit(onSubmit)} className="grid gap-4" noValidate>
          <DialogHeader>
            <DialogTitle>AI vendor: {provider?.name}</DialogTitle>
            <DialogDescription>
              Automated orders of this provider (AI Quick Analysis, the automated part of the Complete
              Analysis Package) are sent to the vendor&apos;s webhook, signed with the secret, with a
              credential that reads only the order&apos;s study. The vendor posts its report back. Leave it
              unset for the built-in technical report.
            </DialogDescription>
          </DialogHeader>
          <div className="grid gap-2">
            <Label htmlFor={`${id}-url`}>Webhook URL</Label>
            <Input
              id={`${id}-url`}
              type="url"
              placeholder="https://"
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${id}-url-error` : `${id}-url-help`}
              {...register('webhookUrl')}
            />
            <p id={`${id}-url-help`} className="text-xs text-muted-foreground">
              https:// only (http:// to this machine is accepted outside production).
            </p>
            <FieldError id={`${id}-url-error`} message={error} />
          </div>
          <p className="text-sm text-muted-foreground">
            Signing secret:{' '}
            {provider?.vendor?.secretCreatedAt
              ? `made ${new Date(provider.vendor.secretCreatedAt).toLocaleString()}`
              : 'none yet (made when the webhook is first saved)'}
          </p>
          {secret && (
            <Alert variant="info" role="status">
              <KeyRound aria-hidden="true" />
              <div className="grid min-w-0 gap-2">
                <AlertTitle>Signing secret (shown once)</AlertTitle>
                <AlertDescription className="grid gap-2">
                  <p>Give it to the vendor now; it cannot be shown again (rotate it to get a new one).</p>
                  <code
                    className="break-all rounded bg-background px-2 py-1 font-mono text-xs"
                    aria-label="Signing secret"
                  >
                    {secret}
                  </code>
                  <Button
                    type="button"
                    size="sm"
                    variant="outline"
                    className="justify-self-start"
                    onClick={copy}
                  >
                    Copy secret
                  </Button>
                </AlertDescription>
              </div>
            </Alert>
          )}
          <DialogFooter className="flex-wrap gap-2">
            {provider?.vendor && (
              <Button
                type="button"
                variant="outline"
                className="text-destructive hover:bg-destructive/10 hover:text-destructive"
                disabled={change.isPending}
                onClick={() => provider && run({ kind: 'remove', id: provider.id }, 'Vendor webhook removed')}
              >
                Stop sending orders
              </Button>
            )}
            {provider?.vendor && (
              <Button
                type="button"
                variant="outline"
                disabled={change.isPending}
                onClick={() => provider && run({ kind: 'rotate', id: provider.id }, 'Signing secret rotated')}
              >
                Rotate secret
              </Button>
            )}
            <Button type="button" variant="outline" onClick={onClose}>
              Close
            </Button>
            <Button type="submit" disabled={change.isPending}>
              Save Webhook
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
