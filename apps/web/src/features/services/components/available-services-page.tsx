import { formatDollars, humanize, type Service, type ServiceProvider } from '@mi/contracts/orders';
import { ChevronDown, ChevronRight, ChevronsUpDown, Info, Link2 } from 'lucide-react';
import { Fragment, useMemo, useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { NativeSelect } from '@/components/ui/native-select';
import { useServices } from '../api/get-services';

type SortKey = 'name' | 'scope' | 'typicalTime' | 'provider' | 'price';
const lowest = (s: Service) => Math.min(...s.providers.map((p) => p.price));
const highest = (s: Service) => Math.max(...s.providers.map((p) => p.price));

/** One price with two decimals for one provider, a min-max range otherwise. */
export function priceLabel(s: Service): string {
  const lo = lowest(s);
  const hi = highest(s);
  return lo === hi ? formatDollars(lo) : `${formatDollars(lo)} - ${formatDollars(hi)}`;
}

/**
 * /services/available: the catalogue as a table with search, scope filter, sortable columns and
 * rows that open onto the required data and the providers offering the service.
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
  const [search, setSearch] = useState('');
  const [scope, setScope] = useState('all');
  const [sort, setSort] = useState<{ key: SortKey; dir: 'asc' | 'desc' }>({ key: 'name', dir: 'asc' });
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [info, setInfo] = useState<ServiceProvider | null>(null);

  const scopes = useMemo(
    () => [...new Set((services.data ?? []).map((s) => s.scope))].sort(),
    [services.data],
  );
  const rows = useMemo(() => {
    const q = search.trim().toLowerCase();
    const list = (services.data ?? []).filter(
      (s) =>
        (scope === 'all' || s.scope === scope) &&
        (!q || [s.name, s.scope, humanize(s.scope), s.description].some((v) => v.toLowerCase().includes(q))),
    );
    const value = (s: Service): string | number =>
      sort.key === 'price' ? lowest(s) : sort.key === 'provider' ? (s.providers[0]?.name ?? '') : s[sort.key];
    return list.sort((a, b) => {
      const x = value(a);
      const y = value(b);
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return sort.dir === 'asc' ? c : -c;
    });
  }, [services.data, search, scope, sort]);

  const header = (key: SortKey, label: string) => (
    <th scope="col" className="px-3 py-2 text-left font-medium">
      <button
        type="button"
        className="inline-flex items-center gap-1 hover:underline"
        onClick={() => setSort((s) => ({ key, dir: s.key === key && s.dir === 'asc' ? 'desc' : 'asc' }))}
        aria-sort={sort.key === key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined}
      >
        {label}
        <ChevronsUpDown className="size-3.5" aria-hidden />
      </button>
    </th>
  );
  const toggle = (id: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <div className="grid gap-4">
      {banner && (
        <Alert>
          You are purchasing an analysis for the study <strong>{banner.studyName}</strong> for the patient{' '}
          <strong>{banner.patientName}</strong>. Choose a service and a provider below.
        </Alert>
      )}
      <div className="flex flex-col gap-2 sm:flex-row">
        <Input
          placeholder="Search available services..."
          aria-label="Search available services"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          className="sm:max-w-sm"
        />
        <NativeSelect
          aria-label="Scope"
          value={scope}
          onChange={(e) => setScope(e.target.value)}
          className="sm:w-56"
        >
          <option value="all">All Scopes</option>
          {scopes.map((s) => (
            <option key={s} value={s}>
              {humanize(s)}
            </option>
          ))}
        </NativeSelect>
      </div>
      <Card className="overflow-x-auto">
        <table className="w-full min-w-[720px] text-sm">
          <thead className="border-b bg-muted/40">
            <tr>
              <th className="w-8" />
              {header('name', 'Service Name')}
              {header('scope', 'Scope')}
              {header('typicalTime', 'Turnaround Time')}
              {header('provider', 'Provider')}
              {header('price', 'Price')}
            </tr>
          </thead>
          <tbody>
            {services.isPending && (
              <tr>
                <td colSpan={6} className="px-3 py-6 text-center text-muted-foreground">
                  Loading...
                </td>
              </tr>
            )}
            {services.isError && (
              <tr>
                <td colSpan={6} className="px-3 py-6 text-center text-destructive">
                  Failed to load services.
                </td>
              </tr>
            )}
            {services.isSuccess && rows.length === 0 && (
              <tr>
                <td colSpan={6} className="px-3 py-6 text-center text-muted-foreground">
                  No services found
                </td>
              </tr>
            )}
            {rows.map((s) => (
              <Fragment key={s.id}>
                <tr className="cursor-pointer border-b hover:bg-muted/30" onClick={() => toggle(s.id)}>
                  <td className="px-2">
                    <button
                      type="button"
                      aria-label={open.has(s.id) ? `Hide ${s.name}` : `Show ${s.name}`}
                      aria-expanded={open.has(s.id)}
                      className="p-1"
                      onClick={(e) => {
                        e.stopPropagation();
                        toggle(s.id);
                      }}
                    >
                      {open.has(s.id) ? (
                        <ChevronDown className="size-4" />
                      ) : (
                        <ChevronRight className="size-4" />
                      )}
                    </button>
                  </td>
                  <td className="px-3 py-2 font-medium">{s.name}</td>
                  <td className="px-3 py-2">{humanize(s.scope)}</td>
                  <td className="px-3 py-2">{s.typicalTime}</td>
                  <td className="px-3 py-2">
                    {s.providers.length === 1 ? s.providers[0]!.name : `${s.providers.length} Providers`}
                  </td>
                  <td className="px-3 py-2">
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
                      <p className="mb-2">{s.description}</p>
                      <p className="font-medium">Required data</p>
                      <ul className="mb-3 list-disc pl-5 text-muted-foreground">
                        {s.requiredData.map((d) => (
                          <li key={d}>{d}</li>
                        ))}
                      </ul>
                      <table className="w-full text-sm" aria-label={`Providers of ${s.name}`}>
                        <thead>
                          <tr className="text-left text-muted-foreground">
                            <th className="py-1 pr-3 font-medium">Provider</th>
                            <th className="py-1 pr-3 font-medium">Scope</th>
                            <th className="py-1 pr-3 font-medium">Turnaround</th>
                            <th className="py-1 pr-3 font-medium">Rating</th>
                            <th className="py-1 pr-3 font-medium">Price</th>
                            <th className="py-1" />
                          </tr>
                        </thead>
                        <tbody>
                          {s.providers.map((p) => (
                            <tr key={p.id} className="border-t">
                              <td className="py-1.5 pr-3">
                                <button
                                  type="button"
                                  className="inline-flex items-center gap-1 hover:underline"
                                  onClick={() => setInfo(p)}
                                >
                                  {p.name}
                                  <Info className="size-3.5" aria-label="Provider info" />
                                </button>
                              </td>
                              <td className="py-1.5 pr-3">{humanize(s.scope)}</td>
                              <td className="py-1.5 pr-3">{s.typicalTime}</td>
                              <td className="py-1.5 pr-3">
                                <span className="inline-flex items-center gap-1">
                                  {p.rating.toFixed(1)}/5
                                  {p.isConnected && (
                                    <Badge variant="outline" className="gap-1">
                                      <Link2 className="size-3" aria-hidden /> Connected
                                    </Badge>
                                  )}
                                </span>
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
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      </Card>
      <Dialog open={info !== null} onOpenChange={(o) => !o && setInfo(null)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>{info?.name}</DialogTitle>
            <DialogDescription>{info?.specialty ?? 'Healthcare provider'}</DialogDescription>
          </DialogHeader>
          <p>Rating: {info?.rating.toFixed(1)}/5</p>
          <p>{info?.isConnected ? 'Connected' : 'Not Connected'}</p>
        </DialogContent>
      </Dialog>
    </div>
  );
}
