import { zodResolver } from '@hookform/resolvers/zod';
import { offerSettingsSchema, type MyOffer, type OfferSettings } from '@mi/contracts/directory';
import { formatDollars } from '@mi/contracts/orders';
import { useId } from 'react';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { Button } from '@/components/ui/button';
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
import { toast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useSaveOffer } from '../api/professional-profile';

type OfferFormValues = z.input<typeof offerSettingsSchema>;

/** An offer's terms: a new one starts from the service's default price, turnaround and modalities. */
export function offerDefaults(row: MyOffer): OfferSettings {
  return row.offer
    ? { price: row.offer.price, turnaround: row.offer.turnaround, modalities: row.offer.modalities }
    : { price: row.defaultPrice, turnaround: row.typicalTime, modalities: row.supportedModalities };
}

/** Offer this service / Edit offer: the price, turnaround and modalities patients buy it at. */
export function OfferDialog({ row, onClose }: { row: MyOffer; onClose: () => void }) {
  const id = useId();
  const save = useSaveOffer();
  const editing = row.offer?.status === 'live';
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<OfferFormValues, unknown, OfferSettings>({
    resolver: zodResolver(offerSettingsSchema),
    defaultValues: offerDefaults(row),
  });

  const onSubmit = handleSubmit((settings) =>
    save.mutate(
      { serviceId: row.serviceId, settings },
      {
        onSuccess: () => {
          toast({
            title: editing ? 'Offer updated' : 'Offer saved',
            description: `${row.serviceName} at ${formatDollars(settings.price)}, ${settings.turnaround}.`,
          });
          onClose();
        },
        onError: (err) =>
          setError('root', { type: 'server', message: errorMessage(err, 'The offer could not be saved.') }),
      },
    ),
  );

  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{editing ? `Edit offer: ${row.serviceName}` : `Offer ${row.serviceName}`}</DialogTitle>
          <DialogDescription>
            Patients buy it at this price and expect your report within this turnaround. A new price applies
            to new orders only. Default: {formatDollars(row.defaultPrice)}, {row.typicalTime}.
          </DialogDescription>
        </DialogHeader>
        <form id={`${id}-form`} className="grid gap-4" onSubmit={onSubmit} noValidate>
          <div className="grid gap-1.5">
            <Label htmlFor={`${id}-price`}>Price (dollars)</Label>
            <Input
              id={`${id}-price`}
              type="number"
              step="0.01"
              min="0.01"
              inputMode="decimal"
              className="sm:w-40"
              aria-invalid={errors.price ? true : undefined}
              aria-describedby={errors.price ? `${id}-price-error` : undefined}
              {...register('price', { valueAsNumber: true })}
            />
            <FieldError id={`${id}-price-error`} message={errors.price?.message} />
          </div>
          <div className="grid gap-1.5">
            <Label htmlFor={`${id}-turnaround`}>Turnaround</Label>
            <Input
              id={`${id}-turnaround`}
              placeholder="24-48 hours"
              aria-invalid={errors.turnaround ? true : undefined}
              aria-describedby={errors.turnaround ? `${id}-turnaround-error` : undefined}
              {...register('turnaround')}
            />
            <FieldError id={`${id}-turnaround-error`} message={errors.turnaround?.message} />
          </div>
          <fieldset
            className="grid gap-2"
            aria-describedby={errors.modalities ? `${id}-modalities-error` : undefined}
          >
            <legend className="mb-1 text-sm font-medium">Modalities you read</legend>
            <div className="flex flex-wrap gap-x-4 gap-y-2">
              {row.supportedModalities.map((m) => (
                <label key={m} className="inline-flex items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    value={m}
                    className="size-4 accent-primary"
                    {...register('modalities')}
                  />
                  {m}
                </label>
              ))}
            </div>
            <FieldError id={`${id}-modalities-error`} message={errors.modalities?.message} />
          </fieldset>
          {errors.root?.message && (
            <p role="alert" className="text-sm text-destructive">
              {errors.root.message}
            </p>
          )}
        </form>
        <DialogFooter>
          <Button variant="outline" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" form={`${id}-form`} disabled={save.isPending}>
            {save.isPending ? 'Saving...' : 'Save offer'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
