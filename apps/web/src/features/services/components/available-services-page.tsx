import { formatDollars, humanize, type Service, type ServiceProvider } from '@mi/contracts/orders';
import { ChevronDown, ChevronRight, Info, Link2 } from 'lucide-react';
import { Fragment, useState } from 'react';
import { distinctOptions, FilterToolbar } from '@/components/list/filter-toolbar';
import { ListLayout } from '@/components/list/list-layout';
import { listStatus, ListStatus, ListStatusRow } from '@/components/list/list-status';
import { matchesText, type SortColumns } from '@/components/list/sort';
import { SortHeader, SortSelect } from '@/components/list/sort-controls';
import { useList } from '@/components/list/use-list';
import {
  compareRatings,
  DemoBadge,
  ProviderKindBadge,
  RatingSummary,
  ratingText,
} from '@/components/provider-trust';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { useServices } from '../api/get-services';
import { compareTurnaround } from '../utils/turnaround';

type SortKey = 'name' | 'scope' | 'typicalTime' | 'provider' | 'price';
const lowest = (s: Service) => Math.min(...s.providers.map((p) => p.price));
const highest = (s: Service) => Math.max(...s.providers.map((p) => p.price));

const COLUMNS: Array<{ key: SortKey; label: string; kind?: 'number' }> = [
  { key: 'name', label: 'Service Name' },
  { key: 'scope', label: 'Scope' },
  { key: 'typicalTime', label: 'Turnaround Time' },
  { key: 'provider', label: 'Provider' },
  { key: 'price', label: 'Price', kind: 'number' },
];

const SORT_BY: SortColumns<Service, SortKey> = {
  name: (s) => s.name,
  scope: (s) => s.scope,
  typicalTime: { compare: (a, b) => compareTurnaround(a.typicalTime, b.typicalTime) },
  provider: (s) => s.providers[0]?.name ?? '',
  price: lowest,
};

/** One price with two decimals for one provider, a min-max range otherwise. */
export function priceLabel(s: Service): string {
  const lo = lowest(s);
  const hi = highest(s);
  return lo === hi ? formatDollars(lo) : `${formatDollars(lo)} - ${formatDollars(hi)}`;
}

const providerLabel = (s: Service) =>
  s.providers.length === 1 ? s.providers[0]!.name : `${s.providers.length} Providers`;

/** A service's providers, best rated first (unrated last), then the cheapest. */
export function providersByRating(providers: ServiceProvider[]): ServiceProvider[] {
  return [...providers].sort((a, b) => compareRatings(a, b) || a.price - b.price);
}

/** Rating out of 5 with its count, and the marker of a provider in the user's trusted network. */
function Rating({ provider: p }: { provider: ServiceProvider }) {
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <RatingSummary rating={p.rating} count={p.ratingCount} />
      {p.isConnected && (
        <Badge variant="outline" className="gap-1">
          <Link2 className="size-3" aria-hidden /> Connected
        </Badge>
      )}
    </span>
  );
}

/** The provider's name, opening its info dialog, then what kind of provider it is and 'Demo'. */
function ProviderName({ provider: p, onInfo }: { provider: ServiceProvider; onInfo: () => void }) {
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5">
      <button
        type="button"
        className="inline-flex items-center gap-1 text-left hover:underline [overflow-wrap:anywhere]"
        onClick={onInfo}
      >
        {p.name}
        <Info className="size-3.5 shrink-0" aria-label="Provider info" />
      </button>
      <ProviderKindBadge kind={p.kind} />
      {p.demo && <DemoBadge />}
    </span>
  );
}

/**
 * An opened service: description, required data and its providers, as a table on wide screens
 * and a list of cards on a phone, each with Purchase.
 */
function ServiceDetails({
  service: s,
  wide,
  onInfo,
  onPurchase,
}: {
  service: Service;
  wide: boolean;
  onInfo: (p: ServiceProvider) => void;
  onPurchase: (service: Service, provider: ServiceProvider) => void;
}) {
  const providers = providersByRating(s.providers);
  return (
    <div className="grid gap-2 text-sm">
      <p>{s.description}</p>
      <div>
        <p className="font-medium">Required data</p>
        <ul className="list-disc pl-5 text-muted-foreground">
          {s.requiredData.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      </div>
      {wide ? (
        <table className="w-full text-sm" aria-label={`Providers of ${s.name}`}>
          <thead>
            <tr className="text-left text-muted-foreground">
              <th className="py-1 pr-3 font-medium">Provider</th>
              <th className="py-1 pr-3 font-medium">Scope</th>
              <th className="py-1 pr-3 font-medium">Turnaround</th>
              <th className="py-1 pr-3 font-medium">Rating</th>
              <th className="py-1 pr-3 font-medium">Price</th>
              <th className="py-1">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {providers.map((p) => (
              <tr key={p.id} className="border-t">
                <td className="py-1.5 pr-3">
                  <ProviderName provider={p} onInfo={() => onInfo(p)} />
                </td>
                <td className="py-1.5 pr-3">{humanize(s.scope)}</td>
                <td className="py-1.5 pr-3">{p.turnaround}</td>
                <td className="py-1.5 pr-3">
                  <Rating provider={p} />
                </td>
                <td className="py-1.5 pr-3">{formatDollars(p.price)}</td>
                <td className="py-1.5 text-right">
                  <Button size="sm" onClick={() => onPurchase(s, p)}>
                    Purchase
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <ul className="grid gap-2" aria-label={`Providers of ${s.name}`}>
          {providers.map((p) => (
            <li key={p.id} className="grid gap-2 rounded-md border bg-card p-3">
              <div className="flex items-start justify-between gap-3">
                <ProviderName provider={p} onInfo={() => onInfo(p)} />
                <span className="shrink-0 font-semibold">{formatDollars(p.price)}</span>
              </div>
              <div className="flex flex-wrap items-center justify-between gap-2 text-muted-foreground">
                <span className="grid gap-1">
                  <Rating provider={p} />
                  <span>Turnaround: {p.turnaround}</span>
                </span>
                <Button size="sm" onClick={() => onPurchase(s, p)}>
                  Purchase
                </Button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * /services/available: the catalogue with search, scope filter, sortable columns and services
 * that open onto the required data and the providers offering them; a table on wide screens,
 * cards on a phone.
 */
export function AvailableServicesPage({
  banner,
  onPurchase,
}: {
  /** Set when coming from 'Get Analysis': whose study the analysis is for. */
  banner?: { studyName: string; patientName: string };
  onPurchase: (service: Service, provider: ServiceProvider) => void;
}) {
  const services = useServices();
  const list = useList<Service, SortKey, { scope: string }>({
    rows: services.data,
    sort: { key: 'name', dir: 'asc' },
    sortBy: SORT_BY,
    search: (s, q) => matchesText([s.name, s.scope, humanize(s.scope), s.description], q),
    filters: { scope: 'all' },
    filter: (s, f) => f.scope === 'all' || s.scope === f.scope,
    pageSize: Infinity,
  });
  // Rows held from before a failed reload are not shown under its error.
  const rows = services.isError ? [] : list.rows;
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [info, setInfo] = useState<ServiceProvider | null>(null);

  const toggle = (id: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const toggleButton = (s: Service, label?: string) => (
    <button
      type="button"
      aria-label={label ? undefined : open.has(s.id) ? `Hide ${s.name}` : `Show ${s.name}`}
      aria-expanded={open.has(s.id)}
      className="inline-flex items-center gap-1 p-1 text-sm"
      onClick={(e) => {
        e.stopPropagation();
        toggle(s.id);
      }}
    >
      {open.has(s.id) ? (
        <ChevronDown className="size-4" aria-hidden />
      ) : (
        <ChevronRight className="size-4" aria-hidden />
      )}
      {label}
      {label && <span className="sr-only"> of {s.name}</span>}
    </button>
  );

  return (
    <div className="grid gap-4">
      {banner && (
        <Alert className="block [overflow-wrap:anywhere]">
          You are purchasing an analysis for the study <strong>{banner.studyName}</strong> for the patient{' '}
          <strong>{banner.patientName}</strong>. Choose a service and a provider below.
        </Alert>
      )}
      <FilterToolbar
        search={list.search}
        onSearch={list.setSearch}
        placeholder="Search available services..."
        searchLabel="Search available services"
        filters={[
          {
            label: 'Scope',
            allLabel: 'All Scopes',
            value: list.filters.scope,
            onChange: (scope) => list.setFilter('scope', scope),
            options: distinctOptions(services.data ?? [], (s) => s.scope),
          },
        ]}
      />
      <ListLayout
        table={() => (
          <Card className="overflow-x-auto">
            <table className="w-full text-sm" aria-label="Available services">
              <thead className="border-b bg-muted/40">
                <tr>
                  <th className="w-8">
                    <span className="sr-only">Open</span>
                  </th>
                  {COLUMNS.map((c) => (
                    <SortHeader
                      key={c.key}
                      sortKey={c.key}
                      label={c.label}
                      sort={list.sort}
                      onSort={list.setSort}
                    />
                  ))}
                </tr>
              </thead>
              <tbody>
                <ListStatusRow
                  query={services}
                  count={rows.length}
                  columns={6}
                  error="Failed to load services."
                  empty="No services found"
                />
                {rows.map((s) => (
                  <Fragment key={s.id}>
                    <tr className="cursor-pointer border-b hover:bg-muted/30" onClick={() => toggle(s.id)}>
                      <td className="px-2">{toggleButton(s)}</td>
                      <td className="px-3 py-2 font-medium">{s.name}</td>
                      <td className="px-3 py-2">{humanize(s.scope)}</td>
                      <td className="px-3 py-2">{s.typicalTime}</td>
                      <td className="px-3 py-2">{providerLabel(s)}</td>
                      <td className="whitespace-nowrap px-3 py-2">
                        <div>{priceLabel(s)}</div>
                        {s.providers.length > 1 && (
                          <div className="text-xs text-muted-foreground">{s.providers.length} Providers</div>
                        )}
                      </td>
                    </tr>
                    {open.has(s.id) && (
                      <tr className="border-b bg-muted/20">
                        <td />
                        <td colSpan={5} className="px-3 py-3">
                          <ServiceDetails service={s} wide onInfo={setInfo} onPurchase={onPurchase} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </Card>
        )}
        cards={() => (
          <>
            <SortSelect columns={COLUMNS} sort={list.sort} onSort={list.setSort} />
            <ListStatus
              query={services}
              count={rows.length}
              error="Failed to load services."
              empty={<Card className="p-6 text-center text-sm text-muted-foreground">No services found</Card>}
            />
            {listStatus(services, rows.length) === null && (
              <ul className="grid gap-3" aria-label="Available services">
                {rows.map((s) => (
                  <li key={s.id}>
                    <Card className="grid gap-3 p-4">
                      <div className="flex items-start justify-between gap-3">
                        <h2 className="font-semibold [overflow-wrap:anywhere]">{s.name}</h2>
                        <div className="shrink-0 text-right font-semibold">{priceLabel(s)}</div>
                      </div>
                      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
                        <dt className="text-muted-foreground">Scope</dt>
                        <dd>{humanize(s.scope)}</dd>
                        <dt className="text-muted-foreground">Turnaround</dt>
                        <dd>{s.typicalTime}</dd>
                        <dt className="text-muted-foreground">Provider</dt>
                        <dd className="[overflow-wrap:anywhere]">{providerLabel(s)}</dd>
                      </dl>
                      <div>
                        {toggleButton(
                          s,
                          open.has(s.id) ? 'Hide details and providers' : 'Details and providers',
                        )}
                      </div>
                      {open.has(s.id) && (
                        <ServiceDetails service={s} wide={false} onInfo={setInfo} onPurchase={onPurchase} />
                      )}
                    </Card>
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      />
      <Dialog open={info !== null} onOpenChange={(o) => !o && setInfo(null)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>{info?.name}</DialogTitle>
            <DialogDescription>{info?.specialty ?? 'Healthcare provider'}</DialogDescription>
          </DialogHeader>
          {info && (info.kind !== 'professional' || info.demo) && (
            <div className="flex flex-wrap gap-1">
              <ProviderKindBadge kind={info.kind} />
              {info.demo && <DemoBadge />}
            </div>
          )}
          <p>Rating: {info ? ratingText(info.rating, info.ratingCount) : ''}</p>
          <p>Turnaround: {info?.turnaround}</p>
          {info && info.modalities.length > 0 && <p>Modalities: {info.modalities.join(', ')}</p>}
          <p>{info?.isConnected ? 'Connected' : 'Not Connected'}</p>
        </DialogContent>
      </Dialog>
    </div>
  );
}
