import { zodResolver } from '@hookform/resolvers/zod';
import {
  offerInputSchema,
  offerPriceSchema,
  serviceInputSchema,
  type AdminOffer,
  type AdminService,
  type OfferInput,
  type OfferPrice,
  type ServiceInput,
} from '@mi/contracts/catalogue-admin';
import { formatDollars, humanize, serviceTypeSchema } from '@mi/contracts/orders';
import { FlaskConical, Pencil, Plus, Tags } from 'lucide-react';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { listStatus, ListStatus } from '@/components/list/list-status';
import { EmptyState } from '@/components/empty-state';
import { DemoBadge, ProviderKindBadge } from '@/components/provider-trust';
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
import { NativeSelect } from '@/components/ui/native-select';
import { Textarea } from '@/components/ui/textarea';
import { toast } from '@/hooks/use-toast';
import { cn } from '@/lib/utils';
import { useAdminProviders } from '../../shared/api/admin-providers';
import { saveRecord } from '../../shared/api/record-changes';
import { FormDialog, recordFormKey, type RecordDraft } from '../../shared/components/form-dialog';
import { FormField } from '../../shared/components/form-field';
import { EditButton, RefreshButton, RestoreButton, RetireButton } from '../../shared/components/list-actions';
import { savedToasts, toastFailure } from '../../shared/utils/change-toasts';
import { useAdminServices, useChangeService, type ServiceChange } from '../api/admin-services';

// The server's schema, with the two lists typed as text: required data one item a line,
// modalities comma-separated.
const serviceFormSchema = serviceInputSchema.omit({ requiredData: true, supportedModalities: true }).extend({
  requiredData: z.string().max(4000),
  supportedModalities: z.string().trim().min(1, 'Name at least one modality').max(800),
});
type ServiceFormValues = z.infer<typeof serviceFormSchema>;

const EMPTY_FORM: ServiceFormValues = {
  name: '',
  scope: '',
  description: '',
  typicalTime: '',
  requiredData: '',
  type: 'Expert',
  supportedModalities: '',
};

const split = (text: string, by: RegExp) =>
  text
    .split(by)
    .map((s) => s.trim())
    .filter(Boolean);

function toForm(s: AdminService): ServiceFormValues {
  return {
    name: s.name,
    scope: s.scope,
    description: s.description,
    typicalTime: s.typicalTime,
    requiredData: s.requiredData.join('\n'),
    type: s.type,
    supportedModalities: s.supportedModalities.join(', '),
  };
}

function toInput(values: ServiceFormValues): ServiceInput {
  return {
    ...values,
    requiredData: split(values.requiredData, /\n/),
    supportedModalities: split(values.supportedModalities, /,/),
  };
}

/** '$49.99' or '$49.99 – $54.99' over the offers on sale; 'No live offers' otherwise. */
function priceRange(offers: AdminOffer[]): string {
  const prices = offers.filter((o) => o.sellable).map((o) => o.price);
  if (prices.length === 0) return 'No live offers';
  const min = Math.min(...prices);
  const max = Math.max(...prices);
  return min === max ? formatDollars(min) : `${formatDollars(min)} – ${formatDollars(max)}`;
}

/** Admin → Services: the analysis services users buy, and the providers offering them at a price. */
export function ServicesAdmin() {
  const services = useAdminServices();
  const change = useChangeService();
  const [editing, setEditing] = useState<RecordDraft<AdminService>>(null);
  const [offersOf, setOffersOf] = useState<string | null>(null);
  const list = services.data ?? [];

  const act = (c: ServiceChange, title: string) => change.mutate(c, savedToasts(title));

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-end justify-between gap-3 space-y-0">
        <div>
          <CardTitle>Services</CardTitle>
          <CardDescription>
            The analysis services users order under Available Services. A service is shown once a provider
            offers it; a new price applies to new orders only.
          </CardDescription>
        </div>
        <div className="flex gap-2">
          <RefreshButton query={services} />
          <Button size="sm" className="h-10" onClick={() => setEditing('new')}>
            <Plus aria-hidden="true" /> New Service
          </Button>
        </div>
      </CardHeader>
      <CardContent>
        <ListStatus
          query={services}
          count={list.length}
          error="The services could not be loaded"
          empty={
            <EmptyState icon={FlaskConical} title="No services">
              Add the first analysis service.
            </EmptyState>
          }
        />
        {listStatus(services, list.length) === null && (
          <div className="relative overflow-x-auto rounded-md border">
            <table className="w-full text-sm" aria-label="Analysis services">
              <thead className="bg-muted/50 text-left text-xs text-muted-foreground">
                <tr>
                  <th className="p-2 font-medium">Service</th>
                  <th className="hidden p-2 font-medium md:table-cell">Type</th>
                  <th className="hidden p-2 font-medium lg:table-cell">Typical time</th>
                  <th className="p-2 font-medium">Price</th>
                  <th className="p-2">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((s) => (
                  <tr key={s.id} className={cn('border-t align-top', s.retiredAt && 'bg-muted/40')}>
                    <td className="p-2">
                      <div className="flex flex-wrap items-center gap-2 font-medium">
                        {s.name}
                        {s.retiredAt && <Badge variant="outline">Retired</Badge>}
                      </div>
                      <div className="text-xs text-muted-foreground">
                        {humanize(s.scope)} · {s.supportedModalities.join(', ')}
                      </div>
                    </td>
                    <td className="hidden p-2 md:table-cell">
                      <Badge variant="secondary">{s.type}</Badge>
                    </td>
                    <td className="hidden p-2 lg:table-cell">{s.typicalTime}</td>
                    <td className="p-2">
                      <div>{priceRange(s.offers)}</div>
                      <div className="text-xs text-muted-foreground">
                        {s.offers.filter((o) => o.sellable).length} of {s.offers.length} offers on sale ·
                        default {formatDollars(s.defaultPrice)}
                      </div>
                    </td>
                    <td className="p-2">
                      <div className="flex flex-wrap justify-end gap-2">
                        <EditButton name={s.name} onClick={() => setEditing(s)} />
                        <Button
                          size="sm"
                          variant="outline"
                          onClick={() => setOffersOf(s.id)}
                          aria-label={`Offers of ${s.name}`}
                        >
                          <Tags aria-hidden="true" /> Offers
                        </Button>
                        {s.retiredAt ? (
                          <RestoreButton
                            disabled={change.isPending}
                            onClick={() => act({ kind: 'restore', id: s.id }, 'Service restored')}
                            aria-label={`Restore ${s.name}`}
                          />
                        ) : (
                          <RetireButton
                            disabled={change.isPending}
                            onClick={() => act({ kind: 'retire', id: s.id }, 'Service retired')}
                            aria-label={`Retire ${s.name}`}
                          />
                        )}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </CardContent>
      <ServiceFormDialog key={recordFormKey(editing)} service={editing} onClose={() => setEditing(null)} />
      <OffersDialog service={list.find((s) => s.id === offersOf) ?? null} onClose={() => setOffersOf(null)} />
    </Card>
  );
}

function ServiceFormDialog({
  service,
  onClose,
}: {
  service: RecordDraft<AdminService>;
  onClose: () => void;
}) {
  const change = useChangeService();
  const isNew = service === 'new';
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<ServiceFormValues>({
    resolver: zodResolver(serviceFormSchema),
    defaultValues: service && service !== 'new' ? toForm(service) : EMPTY_FORM,
  });

  const onSubmit = (values: ServiceFormValues) => {
    if (!service) return;
    change.mutate(
      saveRecord(service, toInput(values)),
      savedToasts(isNew ? 'Service created' : 'Service updated', onClose),
    );
  };

  return (
    <FormDialog
      open={service !== null}
      onClose={onClose}
      onSubmit={handleSubmit(onSubmit)}
      title={isNew ? 'New Service' : 'Edit Service'}
      description="Shown to users under Available Services and Analysis services. Prices are set per provider under Offers."
      submitLabel={isNew ? 'Create Service' : 'Save Changes'}
      pending={change.isPending}
      className="max-w-2xl"
    >
      <div className="grid gap-3 sm:grid-cols-2">
        <FormField label="Name" error={errors.name}>
          {(a) => <Input {...a} {...register('name')} />}
        </FormField>
        <FormField label="Scope (e.g. expert_review)" error={errors.scope}>
          {(a) => <Input {...a} {...register('scope')} />}
        </FormField>
        <FormField label="Type" error={errors.type}>
          {(a) => (
            <NativeSelect {...a} {...register('type')}>
              {serviceTypeSchema.options.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </NativeSelect>
          )}
        </FormField>
        <FormField label="Typical time (e.g. 24-48 hours)" error={errors.typicalTime}>
          {(a) => <Input {...a} {...register('typicalTime')} />}
        </FormField>
        <FormField label="Description" error={errors.description} className="sm:col-span-2">
          {(a) => <Textarea {...a} rows={3} {...register('description')} />}
        </FormField>
        <FormField
          label="Required data (one item a line)"
          error={errors.requiredData}
          className="sm:col-span-2"
        >
          {(a) => <Textarea {...a} rows={3} {...register('requiredData')} />}
        </FormField>
        <FormField
          label="Supported modalities (comma-separated, e.g. X-Ray, CT, MRI)"
          error={errors.supportedModalities}
          className="sm:col-span-2"
        >
          {(a) => <Input {...a} {...register('supportedModalities')} />}
        </FormField>
      </div>
    </FormDialog>
  );
}

/** Where an offer stands: on sale, or why it is not sold. */
function OfferStatus({ offer: o }: { offer: AdminOffer }) {
  if (o.retiredAt)
    return (
      <Badge variant="outline">
        {o.retiredBy === 'provider' ? 'Withdrawn by the professional' : 'Retired by an admin'}
      </Badge>
    );
  if (o.providerRetired) return <Badge variant="outline">Provider retired</Badge>;
  if (o.sellable) return <Badge className="bg-green-100 text-green-800">On sale</Badge>;
  return <Badge className="bg-amber-100 text-amber-900">Not sold: no one to deliver it</Badge>;
}

/** Why a live offer is not sold, in a sentence (nothing for one on sale or retired). */
function notSoldHint(o: AdminOffer): string | null {
  if (o.retiredAt || o.providerRetired || o.sellable) return null;
  return o.providerKind === 'professional'
    ? 'The professional has paused their offers, unpublished their profile, or their account is not active.'
    : o.providerKind === 'organisation'
      ? 'Link a verified, active professional to this organisation (Providers → Link account), or set its AI vendor webhook.'
      : 'The automated analysis cannot deliver this service.';
}

/** The providers offering a service: re-price, change the terms of, retire or restore each; add another. */
function OffersDialog({ service, onClose }: { service: AdminService | null; onClose: () => void }) {
  const change = useChangeService();
  const offerChange = (c: ServiceChange, title: string, name: string) =>
    change.mutate(c, { onSuccess: () => toast({ title, description: name }), onError: toastFailure });
  return (
    <Dialog open={service !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="max-w-3xl">
        <DialogHeader>
          <DialogTitle>Offers: {service?.name}</DialogTitle>
          <DialogDescription>
            Each provider's price in dollars, turnaround and modalities. Professionals set their own offers
            from their workspace; you may edit or retire them. A new price applies to new orders only; orders
            already made keep theirs. An offer is sold only while someone can deliver it.
          </DialogDescription>
        </DialogHeader>
        {service && (
          <>
            {service.offers.length === 0 ? (
              <p className="text-sm text-muted-foreground">No provider offers this service yet.</p>
            ) : (
              <ul className="grid gap-2" aria-label="Offers">
                {service.offers.map((o) => (
                  <li
                    key={o.providerId}
                    aria-label={o.providerName}
                    className={cn('grid gap-2 rounded-md border p-3', o.retiredAt && 'bg-muted/40')}
                  >
                    <div className="flex flex-wrap items-center gap-2">
                      <span className="font-medium">{o.providerName}</span>
                      <ProviderKindBadge kind={o.providerKind} all />
                      {o.demo && <DemoBadge />}
                      <span className="text-sm">{formatDollars(o.price)}</span>
                      <OfferStatus offer={o} />
                    </div>
                    <dl className="grid grid-cols-[auto_1fr] gap-x-3 text-sm">
                      <dt className="text-muted-foreground">Turnaround</dt>
                      <dd>{o.turnaround}</dd>
                      <dt className="text-muted-foreground">Modalities</dt>
                      <dd>{o.modalities.join(', ')}</dd>
                    </dl>
                    {notSoldHint(o) && <p className="text-sm text-amber-800">{notSoldHint(o)}</p>}
                    {o.retiredAt ? (
                      o.retiredBy !== 'provider' && (
                        <div>
                          <RestoreButton
                            disabled={change.isPending}
                            aria-label={`Restore offer of ${o.providerName}`}
                            onClick={() =>
                              offerChange(
                                { kind: 'restore-offer', id: service.id, providerId: o.providerId },
                                'Offer restored',
                                o.providerName,
                              )
                            }
                          />
                        </div>
                      )
                    ) : (
                      <>
                        <div className="flex flex-wrap items-start gap-2">
                          <RepriceForm key={`${o.providerId}-${o.price}`} serviceId={service.id} offer={o} />
                          <RetireButton
                            className="h-10"
                            disabled={change.isPending}
                            aria-label={`Retire offer of ${o.providerName}`}
                            onClick={() =>
                              offerChange(
                                { kind: 'retire-offer', id: service.id, providerId: o.providerId },
                                'Offer retired',
                                o.providerName,
                              )
                            }
                          />
                        </div>
                        <OfferTermsForm
                          key={`${o.providerId}-${o.turnaround}-${o.modalities.join()}`}
                          service={service}
                          offer={o}
                        />
                      </>
                    )}
                  </li>
                ))}
              </ul>
            )}
            <AddOfferForm service={service} />
          </>
        )}
        <DialogFooter>
          <Button type="button" variant="outline" onClick={onClose}>
            Close
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

function RepriceForm({ serviceId, offer }: { serviceId: string; offer: AdminOffer }) {
  const id = useId();
  const change = useChangeService();
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<OfferPrice>({ resolver: zodResolver(offerPriceSchema), defaultValues: { price: offer.price } });
  const onSubmit = ({ price }: OfferPrice) =>
    change.mutate(
      { kind: 'reprice', id: serviceId, providerId: offer.providerId, price },
      {
        onSuccess: () =>
          toast({ title: 'Price updated', description: `${offer.providerName}: ${formatDollars(price)}` }),
        onError: toastFailure,
      },
    );
  const error = errors.price?.message;
  return (
    <form onSubmit={handleSubmit(onSubmit)} className="flex flex-wrap items-start gap-2" noValidate>
      <div className="grid gap-1">
        <Label htmlFor={id} className="sr-only">
          New price of {offer.providerName} (dollars)
        </Label>
        <Input
          id={id}
          type="number"
          step="0.01"
          min="0.01"
          className="w-32"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          {...register('price', { valueAsNumber: true })}
        />
        <FieldError id={`${id}-error`} message={error} />
      </div>
      <Button type="submit" size="sm" className="h-10" disabled={change.isPending}>
        Re-price
      </Button>
    </form>
  );
}

// The turnaround as typed, and the modalities as a comma-separated line.
const offerTermsFormSchema = z.object({
  turnaround: z.string().trim().min(1, 'Turnaround is required').max(60, 'At most 60 characters'),
  modalities: z.string().trim().min(1, 'Name at least one modality').max(800),
});
type OfferTermsValues = z.infer<typeof offerTermsFormSchema>;

/** An offer's turnaround and modalities (its price stays); e.g. to correct what a professional set. */
function OfferTermsForm({ service, offer }: { service: AdminService; offer: AdminOffer }) {
  const id = useId();
  const change = useChangeService();
  const [open, setOpen] = useState(false);
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<OfferTermsValues>({
    resolver: zodResolver(offerTermsFormSchema),
    defaultValues: { turnaround: offer.turnaround, modalities: offer.modalities.join(', ') },
  });
  if (!open)
    return (
      <div>
        <Button
          size="sm"
          variant="ghost"
          onClick={() => setOpen(true)}
          aria-label={`Edit turnaround and modalities of ${offer.providerName}`}
        >
          <Pencil aria-hidden="true" /> Edit turnaround and modalities
        </Button>
      </div>
    );
  const onSubmit = ({ turnaround, modalities }: OfferTermsValues) =>
    change.mutate(
      {
        kind: 'reprice',
        id: service.id,
        providerId: offer.providerId,
        price: offer.price,
        turnaround,
        modalities: split(modalities, /,/),
      },
      {
        onSuccess: () => {
          toast({ title: 'Offer updated', description: `${offer.providerName}: ${turnaround}` });
          setOpen(false);
        },
        onError: toastFailure,
      },
    );
  return (
    <form
      onSubmit={handleSubmit(onSubmit)}
      className="grid gap-2 rounded-md border border-dashed p-3 sm:grid-cols-[10rem_1fr_auto] sm:items-start"
      aria-label={`Turnaround and modalities of ${offer.providerName}`}
      noValidate
    >
      <div className="grid gap-1">
        <Label htmlFor={`${id}-turnaround`}>Turnaround</Label>
        <Input
          id={`${id}-turnaround`}
          aria-invalid={errors.turnaround ? true : undefined}
          aria-describedby={errors.turnaround ? `${id}-turnaround-error` : undefined}
          {...register('turnaround')}
        />
        <FieldError id={`${id}-turnaround-error`} message={errors.turnaround?.message} />
      </div>
      <div className="grid gap-1">
        <Label htmlFor={`${id}-modalities`}>Modalities (of {service.supportedModalities.join(', ')})</Label>
        <Input
          id={`${id}-modalities`}
          aria-invalid={errors.modalities ? true : undefined}
          aria-describedby={errors.modalities ? `${id}-modalities-error` : undefined}
          {...register('modalities')}
        />
        <FieldError id={`${id}-modalities-error`} message={errors.modalities?.message} />
      </div>
      <div className="flex gap-2 sm:mt-5">
        <Button type="submit" size="sm" className="h-10" disabled={change.isPending}>
          Save terms
        </Button>
        <Button type="button" size="sm" variant="outline" className="h-10" onClick={() => setOpen(false)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function AddOfferForm({ service }: { service: AdminService }) {
  const change = useChangeService();
  const providers = useAdminProviders();
  const live = new Set(service.offers.filter((o) => !o.retiredAt).map((o) => o.providerId));
  // A professional sets their own offers from their workspace.
  const choices = (providers.data ?? []).filter(
    (p) => !p.retiredAt && !live.has(p.id) && p.kind !== 'professional',
  );
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm<OfferInput>({
    resolver: zodResolver(offerInputSchema),
    defaultValues: { providerId: '', price: undefined },
  });
  const onSubmit = (values: OfferInput) =>
    change.mutate(
      { kind: 'add-offer', id: service.id, ...values },
      {
        onSuccess: () => {
          toast({ title: 'Offer added', description: formatDollars(values.price) });
          reset({ providerId: '', price: undefined });
        },
        onError: toastFailure,
      },
    );
  return (
    <form
      onSubmit={handleSubmit(onSubmit)}
      className="grid gap-3 rounded-md border border-dashed p-3 sm:grid-cols-[1fr_10rem_auto] sm:items-start"
      aria-label="Add an offer"
      noValidate
    >
      <FormField
        label="Provider"
        error={errors.providerId ? { type: 'x', message: 'Choose a provider' } : undefined}
      >
        {(a) => (
          <NativeSelect {...a} {...register('providerId')}>
            <option value="">Choose a provider…</option>
            {choices.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
                {p.specialty ? ` (${p.specialty})` : ''}
              </option>
            ))}
          </NativeSelect>
        )}
      </FormField>
      <FormField label="Price (dollars)" error={errors.price}>
        {(a) => (
          <Input
            {...a}
            type="number"
            step="0.01"
            min="0.01"
            {...register('price', { valueAsNumber: true })}
          />
        )}
      </FormField>
      <Button type="submit" className="sm:mt-6" disabled={change.isPending}>
        <Plus aria-hidden="true" /> Add Offer
      </Button>
    </form>
  );
}
