import { formatDollars, missingStudyDataOfListed, type Service } from '@mi/contracts/orders';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { FilterToolbar } from '@/components/list/filter-toolbar';
import { compareRatings, DemoBadge, RatingSummary, ratingText } from '@/components/provider-trust';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Label } from '@/components/ui/label';
import { NativeSelect } from '@/components/ui/native-select';
import { paths } from '@/config/paths';
import { useToast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDate, formatPersonName } from '@/lib/format';
import { useAnalysisStudy } from '../api/get-analysis-study';
import { useCreateOrder } from '../api/create-order';
import { useServices } from '../api/get-services';
import { studyErrorText } from '../utils/study-error';

const lowest = (s: Service) => Math.min(...s.providers.map((p) => p.price));

/** A service's providers, best rated first (unrated last), then the cheapest. */
const byRating = (s: Service) => [...s.providers].sort((a, b) => compareRatings(a, b) || a.price - b.price);

type CardSort = 'asc' | 'desc' | 'rating';

/** 'Dr Grey (Demo) - $189.99 · 4.7/5 · 23 ratings · 24 hours': one provider option of the order dialog. */
function providerOption(p: Service['providers'][number]): string {
  return `${p.name}${p.demo ? ' (Demo)' : ''} - ${formatDollars(p.price)} · ${ratingText(p.rating, p.ratingCount)} · ${p.turnaround}`;
}

/** /analysis/services?studyId=: the study's facts and the services to order for it. */
export function AnalysisServicesPage({ studyId }: { studyId: string | null }) {
  const study = useAnalysisStudy(studyId);
  const services = useServices();
  const createOrder = useCreateOrder();
  const navigate = useNavigate();
  const { toast } = useToast();
  const [search, setSearch] = useState('');
  const [type, setType] = useState('all');
  const [sort, setSort] = useState<CardSort>('asc');
  const [ordering, setOrdering] = useState<Service | null>(null);
  const [providerId, setProviderId] = useState('');
  const [learning, setLearning] = useState<Service | null>(null);

  const cards = useMemo(() => {
    const q = search.trim().toLowerCase();
    return (services.data ?? [])
      .filter(
        (s) =>
          (type === 'all' || s.type === type) &&
          (!q || `${s.name} ${s.description}`.toLowerCase().includes(q)),
      )
      .sort((a, b) =>
        sort === 'rating'
          ? compareRatings(byRating(a)[0]!, byRating(b)[0]!) || lowest(a) - lowest(b)
          : sort === 'asc'
            ? lowest(a) - lowest(b)
            : lowest(b) - lowest(a),
      );
  }, [services.data, search, type, sort]);

  // A service that cannot read this study says so before it is ordered (the server's rule,
  // missingStudyData): the order would wait for another study ('Upload Required Data').
  const unfit = (s: Service) =>
    study.data ? missingStudyDataOfListed(s.supportedModalities, study.data.metadata.modality) : null;

  const info: Array<[string, string]> = study.data
    ? [
        ['Study ID', study.data.id],
        ['Type', study.data.type ?? 'N/A'],
        ['Date', study.data.date ? formatDate(study.data.date) : 'N/A'],
        ['Status', study.data.status],
        ['File type', study.data.fileType],
        ['File size', `${(study.data.fileSize / 1024 / 1024).toFixed(2)} MB`],
        ['Patient', formatPersonName(study.data.metadata.patient) || 'N/A'],
        ['Age', study.data.metadata.age ?? 'N/A'],
        ['Modality', study.data.metadata.modality ?? 'N/A'],
        ['Body part', study.data.metadata.bodyPart ?? 'N/A'],
      ]
    : [];

  function confirm() {
    if (!ordering || !studyId) return;
    createOrder.mutate(
      { serviceId: ordering.id, providerId: providerId || ordering.providers[0]!.id, studyId },
      {
        onSuccess: () => {
          toast({ title: 'Redirecting to Payment', description: 'Pay for your order on the Billing page.' });
          setOrdering(null);
          void navigate(paths.billing);
        },
        onError: (err) => toast({ title: 'Error', description: errorMessage(err), variant: 'destructive' }),
      },
    );
  }

  return (
    <div className="grid gap-4">
      <Card className="p-4">
        <h2 className="mb-2 font-semibold">Study</h2>
        {!studyId && <p className="text-sm text-muted-foreground">Please Select study to proceed</p>}
        {study.isError && (
          <p role="alert" className="text-sm text-destructive">
            {studyErrorText(study.error)}
          </p>
        )}
        {study.isPending && studyId && <p className="text-sm text-muted-foreground">Loading...</p>}
        <dl className="grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
          {info.map(([k, v]) => (
            <div key={k} className="flex gap-2">
              <dt className="shrink-0 whitespace-nowrap text-muted-foreground">{k}:</dt>
              <dd className="min-w-0 [overflow-wrap:anywhere]">{v}</dd>
            </div>
          ))}
        </dl>
      </Card>
      <FilterToolbar
        search={search}
        onSearch={setSearch}
        placeholder="Search services..."
        searchLabel="Search services"
        filters={[
          {
            label: 'Type',
            allLabel: 'All',
            value: type,
            onChange: setType,
            options: ['AI', 'Expert', 'Combined'].map((t) => ({ value: t, label: t })),
          },
        ]}
      >
        <NativeSelect
          aria-label="Sort by"
          value={sort}
          onChange={(e) => setSort(e.target.value as CardSort)}
          className="sm:w-52"
        >
          <option value="asc">Price: low to high</option>
          <option value="desc">Price: high to low</option>
          <option value="rating">Rating: highest first</option>
        </NativeSelect>
      </FilterToolbar>
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {cards.map((s) => (
          <Card key={s.id} className="flex flex-col gap-2 p-4">
            <div className="flex items-start justify-between gap-2">
              <h3 className="font-semibold">{s.name}</h3>
              <Badge variant="outline">{s.type}</Badge>
            </div>
            <p className="text-sm text-muted-foreground">{s.description}</p>
            <p className="text-sm">Processing time: {s.typicalTime}</p>
            <p className="text-sm">Supported: {s.supportedModalities.join(', ')}</p>
            <p className="flex flex-wrap items-center gap-x-1.5 gap-y-1 text-sm">
              {s.providers.length === 1 ? (
                <>
                  <span className="[overflow-wrap:anywhere]">{s.providers[0]!.name}</span>
                  {s.providers[0]!.demo && <DemoBadge />}
                </>
              ) : (
                <span>{s.providers.length} providers, best rated</span>
              )}
              <RatingSummary rating={byRating(s)[0]!.rating} count={byRating(s)[0]!.ratingCount} />
            </p>
            <p className="text-lg font-semibold">{formatDollars(lowest(s))}</p>
            {unfit(s) && (
              <p className="text-sm text-destructive">
                {unfit(s)} Ordered for this one, it waits until you attach a study it can read.
              </p>
            )}
            <div className="mt-auto flex gap-2">
              <Button
                disabled={!studyId}
                onClick={() => {
                  setProviderId(byRating(s)[0]!.id);
                  setOrdering(s);
                }}
              >
                Order Now
              </Button>
              <Button variant="outline" onClick={() => setLearning(s)}>
                Learn More
              </Button>
            </div>
          </Card>
        ))}
      </div>
      <Dialog open={ordering !== null} onOpenChange={(o) => !o && setOrdering(null)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Confirm Purchase</DialogTitle>
            <DialogDescription>{ordering?.description}</DialogDescription>
          </DialogHeader>
          <div className="grid gap-1.5">
            <Label htmlFor="order-provider">Provider</Label>
            <NativeSelect
              id="order-provider"
              value={providerId}
              onChange={(e) => setProviderId(e.target.value)}
            >
              {ordering &&
                byRating(ordering).map((p) => (
                  <option key={p.id} value={p.id}>
                    {providerOption(p)}
                  </option>
                ))}
            </NativeSelect>
          </div>
          <DialogFooter>
            <Button variant="outline" onClick={() => setOrdering(null)}>
              Cancel
            </Button>
            <Button onClick={confirm} disabled={createOrder.isPending}>
              Confirm
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
      <Dialog open={learning !== null} onOpenChange={(o) => !o && setLearning(null)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>{learning?.name}</DialogTitle>
            <DialogDescription>{learning?.description}</DialogDescription>
          </DialogHeader>
          <p className="text-sm">Turnaround: {learning?.typicalTime}</p>
          <p className="text-sm font-medium">Required data</p>
          <ul className="list-disc pl-5 text-sm text-muted-foreground">
            {learning?.requiredData.map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
        </DialogContent>
      </Dialog>
    </div>
  );
}
