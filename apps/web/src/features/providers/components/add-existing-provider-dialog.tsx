import type { Provider } from '@mi/contracts/sharing';
import { Check, Plus, RefreshCw } from 'lucide-react';
import { useMemo, useState } from 'react';
import { ProviderBadges, RatingSummary, specialtyLabel } from '@/components/provider-trust';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useAddProvider } from '../api/add-provider';
import { useDirectory } from '../api/get-directory';
import {
  EMPTY_PROVIDER_FILTER,
  distinctCountries,
  distinctSpecialties,
  experienceText,
  filterProviders,
  placeOf,
  type ProviderFilter,
} from '../utils/provider-filter';
import { ProviderFilterBar } from './provider-filter-bar';

/** Add Existing Provider: search the directory and add providers to the user's list. */
export function AddExistingProviderDialog({
  open,
  onOpenChange,
  addedIds,
  onInfo,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Providers already in the user's list (their rows are disabled). */
  addedIds: ReadonlySet<string>;
  onInfo: (p: Provider) => void;
}) {
  const directory = useDirectory(open);
  const add = useAddProvider();
  const [filter, setFilter] = useState<ProviderFilter>(EMPTY_PROVIDER_FILTER);
  const [adding, setAdding] = useState<string | null>(null);
  const all = directory.data;
  const specialties = useMemo(() => distinctSpecialties(all ?? []), [all]);
  const countries = useMemo(() => distinctCountries(all ?? []), [all]);
  const rows = useMemo(() => filterProviders(all ?? [], filter), [all, filter]);

  const addOne = (p: Provider) => {
    setAdding(p.id);
    add.mutate(p.id, {
      onSuccess: () => toast({ title: 'Provider Added', description: `${p.name} is now in your providers.` }),
      onError: (err) => toastError(errorMessage(err)),
      onSettled: () => setAdding(null),
    });
  };

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (!next) setFilter(EMPTY_PROVIDER_FILTER);
        onOpenChange(next);
      }}
    >
      <DialogContent className="max-w-3xl">
        <DialogHeader>
          <DialogTitle>Add Existing Provider</DialogTitle>
          <DialogDescription>
            Search the provider directory and add the providers you trust.
          </DialogDescription>
        </DialogHeader>
        <ProviderFilterBar
          filter={filter}
          onChange={setFilter}
          specialties={specialties}
          countries={countries}
          searchLabel="Search the provider directory"
          inDialog
        />
        {/* The list keeps one height whatever the filters leave in it, so the dialog does not jump. */}
        <div
          className="h-[500px] max-h-[60dvh] overflow-y-auto rounded-md border sm:max-h-none"
          data-testid="directory-list"
        >
          {directory.isPending ? (
            <div className="flex h-full items-center justify-center">
              <Spinner className="size-6" label="Loading providers" />
            </div>
          ) : directory.isError ? (
            <Alert variant="destructive" className="m-3 w-auto">
              <AlertDescription className="grid gap-2">
                {errorMessage(directory.error, 'The provider directory could not be loaded.')}
                <Button
                  variant="outline"
                  size="sm"
                  className="w-fit"
                  onClick={() => void directory.refetch()}
                >
                  <RefreshCw aria-hidden="true" /> Try again
                </Button>
              </AlertDescription>
            </Alert>
          ) : rows.length === 0 ? (
            <p className="p-6 text-center text-sm text-muted-foreground">No providers match your search.</p>
          ) : (
            <ul aria-label="Provider directory" className="divide-y">
              {rows.map((p) => {
                const added = addedIds.has(p.id);
                return (
                  <li
                    key={p.id}
                    aria-label={p.name}
                    aria-disabled={added || undefined}
                    className="flex flex-col gap-2 p-3 sm:flex-row sm:items-center sm:justify-between"
                  >
                    <div className="grid min-w-0 gap-0.5">
                      <span className="flex flex-wrap items-center gap-2">
                        <span className="font-medium [overflow-wrap:anywhere]">{p.name}</span>
                        {specialtyLabel(p) && <Badge variant="secondary">{specialtyLabel(p)}</Badge>}
                      </span>
                      <ProviderBadges provider={p} />
                      <span className="text-sm text-muted-foreground [overflow-wrap:anywhere]">
                        {p.contactInformation.email}
                      </span>
                      <span className="flex flex-wrap items-center gap-x-3 text-xs text-muted-foreground">
                        {placeOf(p) && <span>{placeOf(p)}</span>}
                        {experienceText(p.yearsOfExperience) && (
                          <span>{experienceText(p.yearsOfExperience)}</span>
                        )}
                        <RatingSummary rating={p.rating} count={p.ratingCount} />
                      </span>
                    </div>
                    <div className="flex shrink-0 gap-2">
                      <Button
                        variant="ghost"
                        size="sm"
                        onClick={() => onInfo(p)}
                        aria-label={`Provider details: ${p.name}`}
                      >
                        Details
                      </Button>
                      <Button
                        size="sm"
                        variant={added ? 'outline' : 'default'}
                        disabled={added || adding !== null}
                        onClick={() => addOne(p)}
                        // Each name starts with the button's visible text (Added / Adding / Add).
                        aria-label={
                          added
                            ? `Added: ${p.name} is in your providers`
                            : adding === p.id
                              ? `Adding ${p.name}`
                              : `Add ${p.name}`
                        }
                      >
                        {added ? (
                          <>
                            <Check aria-hidden="true" /> Added
                          </>
                        ) : adding === p.id ? (
                          <>
                            <Spinner className="size-4" /> Adding
                          </>
                        ) : (
                          <>
                            <Plus aria-hidden="true" /> Add
                          </>
                        )}
                      </Button>
                    </div>
                  </li>
                );
              })}
            </ul>
          )}
        </div>
      </DialogContent>
    </Dialog>
  );
}
