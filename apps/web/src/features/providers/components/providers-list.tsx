import type { Provider } from '@mi/contracts/sharing';
import { FolderOpen, Info, Send, Trash2 } from 'lucide-react';
import { ListLayout } from '@/components/list/list-layout';
import { ProviderBadges, RatingSummary, specialtyLabel } from '@/components/provider-trust';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { experienceText, placeOf } from '../utils/provider-filter';

export interface ProviderRowHandlers {
  onInfo: (p: Provider) => void;
  onViewShares: (p: Provider) => void;
  onRemove: (p: Provider) => void;
  onShare: (p: Provider) => void;
}

interface ListProps {
  providers: Provider[];
  /** Share mode (?studyId=): each row offers Share Study instead of its usual actions. */
  shareMode: boolean;
  /** The provider a share is being sent to. */
  sharingId: string | null;
  /** Sharing is off (the page says so and offers the switch): no Share Study can be sent. */
  shareBlocked?: boolean;
  handlers: ProviderRowHandlers;
}

/** A private contact has no rating to show; a directory entry shows its own or 'No ratings yet'. */
function Rating({ provider: p }: { provider: Provider }) {
  if (p.kind === 'contact') return <span className="text-muted-foreground">N/A</span>;
  return <RatingSummary rating={p.rating} count={p.ratingCount} />;
}

function RowActions({
  provider: p,
  shareMode,
  sharingId,
  shareBlocked = false,
  handlers,
}: Omit<ListProps, 'providers'> & { provider: Provider }) {
  if (shareMode) {
    const busy = sharingId === p.id;
    return (
      <Button
        size="sm"
        onClick={() => handlers.onShare(p)}
        disabled={sharingId !== null || shareBlocked}
        aria-label={`Share Study with ${p.name}`}
      >
        {busy ? <Spinner className="size-4" /> : <Send aria-hidden="true" />} Share Study
      </Button>
    );
  }
  return (
    <div className="flex flex-wrap gap-2">
      <Button
        size="sm"
        variant="outline"
        onClick={() => handlers.onViewShares(p)}
        aria-label={`View Shared Studies with ${p.name}`}
      >
        <FolderOpen aria-hidden="true" /> View Shared Studies
      </Button>
      <Button
        size="sm"
        variant="outline"
        className="text-destructive hover:bg-destructive/10 hover:text-destructive"
        onClick={() => handlers.onRemove(p)}
        aria-label={`Remove Provider ${p.name}`}
      >
        <Trash2 aria-hidden="true" /> Remove Provider
      </Button>
    </div>
  );
}

function InfoButton({ provider, onInfo }: { provider: Provider; onInfo: (p: Provider) => void }) {
  return (
    <Button
      variant="ghost"
      size="icon"
      className="size-8 shrink-0"
      aria-label={`Provider details: ${provider.name}`}
      title="Provider Details"
      onClick={() => onInfo(provider)}
    >
      <Info aria-hidden="true" />
    </Button>
  );
}

/** The user's trusted providers: a table on wide screens, cards on a phone. */
export function ProvidersList(props: ListProps) {
  const { providers, handlers } = props;
  return (
    <ListLayout
      minWidth="(min-width: 768px)"
      table={() => (
        <div className="overflow-x-auto rounded-lg border bg-card">
          <table className="w-full text-sm" aria-label="Your providers">
            <thead className="bg-muted/50 text-muted-foreground">
              <tr>
                <th scope="col" className="px-3 py-3 text-left font-medium">
                  Name
                </th>
                <th scope="col" className="px-3 py-3 text-left font-medium">
                  Specialty
                </th>
                <th scope="col" className="px-3 py-3 text-left font-medium">
                  Location
                </th>
                <th scope="col" className="px-3 py-3 text-left font-medium">
                  Experience
                </th>
                <th scope="col" className="px-3 py-3 text-left font-medium">
                  Rating
                </th>
                <th scope="col" className="px-3 py-3 text-left font-medium">
                  Actions
                </th>
              </tr>
            </thead>
            <tbody>
              {providers.map((p) => (
                <tr key={p.id} className="border-t align-middle hover:bg-muted/40">
                  <td className="max-w-80 px-3 py-2.5">
                    <span className="flex items-center gap-1">
                      <span className="grid min-w-0">
                        <span className="truncate font-medium" title={p.name}>
                          {p.name}
                        </span>
                        <span
                          className="truncate text-xs text-muted-foreground"
                          title={p.contactInformation.email}
                        >
                          {p.contactInformation.email}
                        </span>
                      </span>
                      <InfoButton provider={p} onInfo={handlers.onInfo} />
                    </span>
                    <ProviderBadges provider={p} className="mt-1" />
                  </td>
                  <td className="px-3 py-2.5">
                    {p.specialty || <span className="text-muted-foreground">N/A</span>}
                  </td>
                  <td className="max-w-48 px-3 py-2.5">
                    {placeOf(p) || <span className="text-muted-foreground">N/A</span>}
                  </td>
                  <td className="whitespace-nowrap px-3 py-2.5">
                    {experienceText(p.yearsOfExperience) || (
                      <span className="text-muted-foreground">N/A</span>
                    )}
                  </td>
                  <td className="px-3 py-2.5">
                    <Rating provider={p} />
                  </td>
                  <td className="px-3 py-2.5">
                    <RowActions provider={p} {...props} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      cards={() => (
        <ul className="grid gap-3" aria-label="Your providers">
          {providers.map((p) => (
            <li key={p.id}>
              <Card className="grid gap-3 p-4">
                <div className="flex items-start justify-between gap-2">
                  <div className="grid min-w-0">
                    <span className="font-medium [overflow-wrap:anywhere]">{p.name}</span>
                    <span className="text-sm text-muted-foreground [overflow-wrap:anywhere]">
                      {p.contactInformation.email}
                    </span>
                  </div>
                  <InfoButton provider={p} onInfo={handlers.onInfo} />
                </div>
                <ProviderBadges provider={p} />
                <div className="flex flex-wrap items-center gap-2 text-sm">
                  {specialtyLabel(p) && <Badge variant="secondary">{specialtyLabel(p)}</Badge>}
                  {placeOf(p) && <span className="text-muted-foreground">{placeOf(p)}</span>}
                  {experienceText(p.yearsOfExperience) && (
                    <span className="text-muted-foreground">{experienceText(p.yearsOfExperience)}</span>
                  )}
                  <Rating provider={p} />
                </div>
                <RowActions provider={p} {...props} />
              </Card>
            </li>
          ))}
        </ul>
      )}
    />
  );
}
