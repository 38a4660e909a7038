import type { MyOffer, ProfessionalProfile } from '@mi/contracts/directory';
import { formatDollars } from '@mi/contracts/orders';
import { Pencil, Plus, Undo2 } from 'lucide-react';
import { useState } from 'react';
import { ListStatusRow } from '@/components/list/list-status';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { useWideLayout } from '@/hooks/use-media-query';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { cn } from '@/lib/utils';
import { useMyOffers, useWithdrawOffer } from '../api/professional-profile';
import { offerDefaults, OfferDialog } from './offer-dialog';

type Status = { label: string; className: string; hint?: string };

/** Where an offer stands for patients: on sale, or why not. */
export function offerStatus(row: MyOffer, profile: ProfessionalProfile): Status {
  const offer = row.offer;
  if (!offer) return { label: 'Not offered', className: 'bg-muted text-foreground' };
  if (offer.status === 'withdrawn') return { label: 'Withdrawn', className: 'bg-slate-200 text-slate-700' };
  if (offer.status === 'retired')
    return {
      label: 'Retired by an administrator',
      className: 'bg-red-100 text-red-800',
      hint: 'An administrator stopped this offer; it cannot be sold or changed.',
    };
  if (!profile.publishedAt)
    return {
      label: 'Not on sale: profile unpublished',
      className: 'bg-yellow-100 text-yellow-800',
      hint: 'Publish your profile to sell it.',
    };
  if (profile.offersPausedAt)
    return {
      label: 'Paused',
      className: 'bg-yellow-100 text-yellow-800',
      hint: 'Resume your offers to sell it.',
    };
  return { label: 'On sale', className: 'bg-green-100 text-green-800' };
}

function StatusBadge({ status }: { status: Status }) {
  return (
    <span className="grid justify-items-start gap-0.5">
      <Badge className={cn('whitespace-nowrap', status.className)}>{status.label}</Badge>
      {status.hint && <span className="text-xs text-muted-foreground">{status.hint}</span>}
    </span>
  );
}

function RowActions({
  row,
  onEdit,
  onWithdraw,
  busy,
  inTable = false,
}: {
  row: MyOffer;
  onEdit: (row: MyOffer) => void;
  onWithdraw: (row: MyOffer) => void;
  busy: boolean;
  /** In the wide table the buttons stay on one line; on a card they wrap. */
  inTable?: boolean;
}) {
  const status = row.offer?.status;
  if (status === 'retired') return null;
  if (status === 'live')
    return (
      <div className={cn('flex justify-end gap-2', inTable ? 'flex-nowrap' : 'flex-wrap')}>
        <Button size="sm" variant="outline" onClick={() => onEdit(row)}>
          <Pencil aria-hidden="true" /> Edit offer
        </Button>
        <Button
          size="sm"
          variant="outline"
          className="text-destructive hover:bg-destructive/10 hover:text-destructive"
          disabled={busy}
          onClick={() => onWithdraw(row)}
        >
          <Undo2 aria-hidden="true" /> Withdraw offer
        </Button>
      </div>
    );
  return (
    <Button size="sm" onClick={() => onEdit(row)}>
      <Plus aria-hidden="true" /> Offer this service
    </Button>
  );
}

/** The terms shown for a row: the offer's, or the defaults a new offer starts from. */
function terms(row: MyOffer) {
  const t = offerDefaults(row);
  return { ...t, isDefault: row.offer === null };
}

/**
 * Your offers: every Expert and Combined service, each with the price, turnaround and modalities
 * you sell it at (or its defaults), its status, and Offer this service / Edit offer / Withdraw offer.
 */
export function OffersTable({ profile }: { profile: ProfessionalProfile }) {
  const offers = useMyOffers();
  const withdraw = useWithdrawOffer();
  const wide = useWideLayout();
  const [editing, setEditing] = useState<MyOffer | null>(null);

  const onWithdraw = (row: MyOffer) =>
    withdraw.mutate(row.serviceId, {
      onSuccess: () =>
        toast({
          title: 'Offer withdrawn',
          description: `${row.serviceName} is no longer sold. Orders already paid go on.`,
        }),
      onError: (err) => toastError(errorMessage(err, 'The offer could not be withdrawn.')),
    });

  const message = offers.isPending
    ? 'Loading...'
    : offers.isError
      ? errorMessage(offers.error, 'Your offers could not be loaded.')
      : offers.data.length === 0
        ? 'No service can be offered yet.'
        : null;
  const rows = offers.isError ? [] : (offers.data ?? []);

  return (
    <>
      {wide ? (
        <Card className="overflow-x-auto">
          <table className="w-full text-sm" aria-label="Your offers">
            <thead className="border-b bg-muted/40 text-left">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium">
                  Service
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Price
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Turnaround
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Modalities
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Status
                </th>
                <th scope="col" className="px-3 py-2">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              <ListStatusRow
                query={offers}
                count={rows.length}
                columns={6}
                error={errorMessage(offers.error, 'Your offers could not be loaded.')}
                empty="No service can be offered yet."
              />
              {rows.map((row) => {
                const t = terms(row);
                return (
                  <tr key={row.serviceId} className="border-b align-top last:border-b-0">
                    <td className="px-3 py-2">
                      <div className="font-medium">{row.serviceName}</div>
                      <div className="text-xs text-muted-foreground">{row.serviceType}</div>
                    </td>
                    <td className={cn('px-3 py-2', t.isDefault && 'text-muted-foreground')}>
                      {formatDollars(t.price)}
                      {t.isDefault && <div className="text-xs">default</div>}
                    </td>
                    <td className={cn('px-3 py-2', t.isDefault && 'text-muted-foreground')}>
                      {t.turnaround}
                    </td>
                    <td className={cn('px-3 py-2', t.isDefault && 'text-muted-foreground')}>
                      {t.modalities.join(', ')}
                    </td>
                    <td className="px-3 py-2">
                      <StatusBadge status={offerStatus(row, profile)} />
                    </td>
                    <td className="w-px whitespace-nowrap px-3 py-2">
                      <div className="flex justify-end">
                        <RowActions
                          row={row}
                          onEdit={setEditing}
                          onWithdraw={onWithdraw}
                          busy={withdraw.isPending}
                          inTable
                        />
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </Card>
      ) : message ? (
        <Card
          className={cn(
            'p-6 text-center text-sm',
            offers.isError ? 'text-destructive' : 'text-muted-foreground',
          )}
        >
          {message}
        </Card>
      ) : (
        <ul className="grid gap-3" aria-label="Your offers">
          {rows.map((row) => {
            const t = terms(row);
            return (
              <li key={row.serviceId} aria-label={row.serviceName}>
                <Card className="grid gap-3 p-4">
                  <div className="flex flex-wrap items-start justify-between gap-2">
                    <div>
                      <h3 className="font-medium">{row.serviceName}</h3>
                      <p className="text-xs text-muted-foreground">{row.serviceType}</p>
                    </div>
                    <StatusBadge status={offerStatus(row, profile)} />
                  </div>
                  <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
                    <dt className="text-muted-foreground">Price</dt>
                    <dd>
                      {formatDollars(t.price)}
                      {t.isDefault ? ' (default)' : ''}
                    </dd>
                    <dt className="text-muted-foreground">Turnaround</dt>
                    <dd>{t.turnaround}</dd>
                    <dt className="text-muted-foreground">Modalities</dt>
                    <dd>{t.modalities.join(', ')}</dd>
                  </dl>
                  <RowActions
                    row={row}
                    onEdit={setEditing}
                    onWithdraw={onWithdraw}
                    busy={withdraw.isPending}
                  />
                </Card>
              </li>
            );
          })}
        </ul>
      )}
      {editing && <OfferDialog key={editing.serviceId} row={editing} onClose={() => setEditing(null)} />}
    </>
  );
}
