import type { Provider } from '@mi/contracts/sharing';
import { Info, Mail, UserPlus, Users } from 'lucide-react';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { EmptyState } from '@/components/empty-state';
import { listStatus, ListStatus } from '@/components/list/list-status';
import { useList } from '@/components/list/use-list';
import { PageHeader } from '@/components/page-header';
import { SharingConsent } from '@/components/sharing-consent';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useUserProviders } from '../api/get-user-providers';
import { useRemoveProvider } from '../api/remove-provider';
import { useShareWithProvider } from '../api/share-with-provider';
import {
  EMPTY_PROVIDER_FILTER,
  distinctCountries,
  distinctSpecialties,
  filterProviders,
  isFiltered,
  type ProviderFilter,
} from '../utils/provider-filter';
import { AddExistingProviderDialog } from './add-existing-provider-dialog';
import { InviteProviderDialog } from './invite-provider-dialog';
import { ProviderDetailsDialog } from './provider-details-dialog';
import { ProviderFilterBar } from './provider-filter-bar';
import { ProviderSharesDialog } from './provider-shares-dialog';
import { ProvidersList } from './providers-list';
import { RemoveProviderDialog } from './remove-provider-dialog';

export const SHARE_MODE_BANNER =
  'Please choose your provider to share the study. If you have no providers, click on "Add existing provider" and choose a provider. If your provider is not showing in the existing providers, you can invite the provider to use our platform.';

/**
 * Healthcare Providers (/providers): the user's trusted providers, adding from the directory and
 * inviting by email. With a study id it is the share picker: each row shares that study.
 */
export function ProvidersPage({
  userId,
  studyId,
  sharingAllowed,
}: {
  userId: string;
  studyId: string | null;
  /** The user's Share Medical Records setting; off, the share picker says so and offers the switch. */
  sharingAllowed: boolean;
}) {
  const navigate = useNavigate();
  const providers = useUserProviders();
  const remove = useRemoveProvider();
  const share = useShareWithProvider(userId);
  const [adding, setAdding] = useState(false);
  const [inviting, setInviting] = useState(false);
  const [info, setInfo] = useState<Provider | null>(null);
  const [viewing, setViewing] = useState<Provider | null>(null);
  const [removing, setRemoving] = useState<Provider | null>(null);
  const [sharingId, setSharingId] = useState<string | null>(null);

  const all = providers.data;
  const specialties = useMemo(() => distinctSpecialties(all ?? []), [all]);
  const countries = useMemo(() => distinctCountries(all ?? []), [all]);
  const list = useList<Provider, 'added', ProviderFilter>({
    rows: all,
    sort: { key: 'added', dir: 'asc' },
    // The order the server gives (the order they were added in).
    sortBy: (rows) => [...rows],
    filters: EMPTY_PROVIDER_FILTER,
    filterRows: (rows, _search, filter) => filterProviders(rows, filter),
    pageSize: Infinity,
  });
  const filter = list.filters;
  const rows = list.rows;
  const addedIds = useMemo(() => new Set((all ?? []).map((p) => p.id)), [all]);

  const confirmRemove = (p: Provider) =>
    remove.mutate(p.id, {
      onSuccess: () => {
        setRemoving(null);
        toast({ title: 'Provider Removed', description: `${p.name} is no longer in your providers.` });
      },
      onError: (err) => toastError(errorMessage(err)),
    });

  const shareWith = (p: Provider) => {
    if (!studyId) return;
    setSharingId(p.id);
    share.mutate(
      { providerId: p.id, studyId },
      {
        onSuccess: (res) => {
          // The account that receives it (the provider's linked professional), else the address invited.
          const email =
            res.data.targetUser?.email ??
            res.data.email ??
            res.data.provider?.contactInformation.email ??
            p.contactInformation.email;
          toast({ title: 'Study Shared', description: `You invited ${email} to view your study` });
          void navigate(paths.studies);
        },
        onError: (err) => toastError(errorMessage(err)),
        onSettled: () => setSharingId(null),
      },
    );
  };

  const body =
    listStatus(providers, rows.length) !== null ? (
      <ListStatus
        query={providers}
        count={rows.length}
        loading="Loading providers"
        error="Your providers could not be loaded"
        retryLabel="Try again"
        empty={
          all?.length ? (
            <EmptyState icon={Users} title="No providers match your search" />
          ) : (
            <EmptyState icon={Users} title="No providers yet">
              <p>
                Use <span className="font-medium text-foreground">Add Existing Provider</span> to find your
                doctors in the directory, or invite a provider who is not listed.
              </p>
              <Button className="mt-3" onClick={() => setAdding(true)}>
                <UserPlus aria-hidden="true" /> Add Existing Provider
              </Button>
            </EmptyState>
          )
        }
      />
    ) : (
      <ProvidersList
        providers={rows}
        shareMode={studyId !== null}
        sharingId={sharingId}
        shareBlocked={!sharingAllowed}
        handlers={{ onInfo: setInfo, onViewShares: setViewing, onRemove: setRemoving, onShare: shareWith }}
      />
    );

  return (
    <>
      <PageHeader
        title="Healthcare Providers"
        description="Keep a network of trusted healthcare providers"
        actions={
          <>
            <Button onClick={() => setAdding(true)}>
              <UserPlus aria-hidden="true" /> Add Existing Provider
            </Button>
            <Button variant="outline" onClick={() => setInviting(true)}>
              <Mail aria-hidden="true" /> Invite New Provider
            </Button>
          </>
        }
      />
      <div className="grid gap-4">
        {studyId && (
          <Alert>
            <Info className="size-4" aria-hidden="true" />
            <AlertDescription>{SHARE_MODE_BANNER}</AlertDescription>
          </Alert>
        )}
        {studyId && !sharingAllowed && (
          <SharingConsent userId={userId} blocked="this study cannot be shared" />
        )}
        {(all?.length ?? 0) > 0 && (
          <ProviderFilterBar
            filter={filter}
            onChange={list.setFilters}
            specialties={specialties}
            countries={countries}
            searchLabel="Search your providers"
          />
        )}
        {isFiltered(filter) && all?.length ? (
          <p className="text-sm text-muted-foreground" aria-live="polite">
            Showing {rows.length} of {all.length} providers
          </p>
        ) : null}
        {body}
      </div>
      <AddExistingProviderDialog
        open={adding}
        onOpenChange={setAdding}
        addedIds={addedIds}
        onInfo={setInfo}
      />
      <InviteProviderDialog open={inviting} onOpenChange={setInviting} />
      <ProviderDetailsDialog provider={info} onClose={() => setInfo(null)} />
      <ProviderSharesDialog provider={viewing} onClose={() => setViewing(null)} />
      <RemoveProviderDialog
        provider={removing}
        pending={remove.isPending}
        onCancel={() => setRemoving(null)}
        onConfirm={confirmRemove}
      />
    </>
  );
}
