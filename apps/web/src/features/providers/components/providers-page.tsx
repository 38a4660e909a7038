import type { Provider } from '@mi/contracts/sharing';
import { Info, Mail, RefreshCw, UserPlus, Users } from 'lucide-react';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { EmptyState } from '@/components/empty-state';
import { PageHeader } from '@/components/page-header';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
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
export function ProvidersPage({ userId, studyId }: { userId: string; studyId: string | null }) {
  const navigate = useNavigate();
  const providers = useUserProviders();
  const remove = useRemoveProvider();
  const share = useShareWithProvider(userId);
  const [filter, setFilter] = useState<ProviderFilter>(EMPTY_PROVIDER_FILTER);
  const [adding, setAdding] = useState(false);
  const [inviting, setInviting] = useState(false);
  const [info, setInfo] = useState<Provider | null>(null);
  const [viewing, setViewing] = useState<Provider | null>(null);
  const [removing, setRemoving] = useState<Provider | null>(null);
  const [sharingId, setSharingId] = useState<string | null>(null);

  const all = providers.data;
  const specialties = useMemo(() => distinctSpecialties(all ?? []), [all]);
  const countries = useMemo(() => distinctCountries(all ?? []), [all]);
  const rows = useMemo(() => filterProviders(all ?? [], filter), [all, filter]);
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
          const email = res.data.provider?.contactInformation.email ?? p.contactInformation.email;
          toast({ title: 'Study Shared', description: `You invited ${email} to view your study` });
          void navigate(paths.studies);
        },
        onError: (err) => toastError(errorMessage(err)),
        onSettled: () => setSharingId(null),
      },
    );
  };

  let body;
  if (providers.isPending) {
    body = (
      <div className="flex justify-center py-16">
        <Spinner className="size-6" label="Loading providers" />
      </div>
    );
  } else if (providers.isError) {
    body = (
      <Alert variant="destructive">
        <div className="grid gap-2">
          <AlertTitle>Your providers could not be loaded</AlertTitle>
          <AlertDescription>{errorMessage(providers.error)}</AlertDescription>
          <Button variant="outline" size="sm" className="w-fit" onClick={() => void providers.refetch()}>
            <RefreshCw aria-hidden="true" /> Try again
          </Button>
        </div>
      </Alert>
    );
  } else if (!all?.length) {
    body = (
      <EmptyState icon={Users} title="No providers yet">
        <p>
          Use <span className="font-medium text-foreground">Add Existing Provider</span> to find your doctors
          in the directory, or invite a provider who is not listed.
        </p>
        <Button className="mt-3" onClick={() => setAdding(true)}>
          <UserPlus aria-hidden="true" /> Add Existing Provider
        </Button>
      </EmptyState>
    );
  } else if (rows.length === 0) {
    body = <EmptyState icon={Users} title="No providers match your search" />;
  } else {
    body = (
      <ProvidersList
        providers={rows}
        shareMode={studyId !== null}
        sharingId={sharingId}
        handlers={{ onInfo: setInfo, onViewShares: setViewing, onRemove: setRemoving, onShare: shareWith }}
      />
    );
  }

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
        {(all?.length ?? 0) > 0 && (
          <ProviderFilterBar
            filter={filter}
            onChange={setFilter}
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
