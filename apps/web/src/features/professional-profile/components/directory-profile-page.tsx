import type { ProfessionalProfile } from '@mi/contracts/directory';
import { Eye, EyeOff, Pause, Play, RefreshCw, ShieldAlert } from 'lucide-react';
import { useState } from 'react';
import { RatingSummary, VerifiedBadge } from '@/components/provider-trust';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
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
import { Spinner } from '@/components/ui/spinner';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import {
  usePauseOffers,
  useProfessionalProfile,
  usePublishProfile,
  useSaveProfile,
} from '../api/professional-profile';
import { missingSentence } from '../utils/profile-form';
import { OffersTable } from './offers-table';
import { ProfileForm } from './profile-form';

const orDash = (v: string | null) => v || '—';

/** What the admin verified from the registration: not editable here. */
function RegistrationFacts({ profile: p }: { profile: ProfessionalProfile }) {
  const facts: Array<[string, string]> = [
    ['Name', p.name],
    ['Specialty', orDash(p.specialty)],
    ['Hospital', orDash(p.hospital)],
    ['Position', orDash(p.position)],
    ['Licence state', p.licenseState],
    ['Verified on', formatDate(p.verifiedAt)],
  ];
  return (
    <Card>
      <CardHeader>
        <CardTitle>Registration</CardTitle>
        <CardDescription>
          From your registration, as an administrator verified it. Contact support to change it.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        <VerifiedBadge
          verified={{ licenseState: p.licenseState, verifiedAt: p.verifiedAt }}
          className="w-fit"
        />
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          {facts.map(([k, v]) => (
            <div key={k} className="contents">
              <dt className="text-muted-foreground">{k}</dt>
              <dd className="[overflow-wrap:anywhere]">{v}</dd>
            </div>
          ))}
          <div className="contents">
            <dt className="text-muted-foreground">Rating</dt>
            <dd>
              <RatingSummary rating={p.rating} count={p.ratingCount} />
            </dd>
          </div>
        </dl>
      </CardContent>
    </Card>
  );
}

/** Publish / Unpublish, and Pause offers / Resume offers (pausing refunds waiting orders, after a confirm). */
function Listing({ profile: p, unsaved }: { profile: ProfessionalProfile; unsaved: boolean }) {
  const publish = usePublishProfile();
  const pause = usePauseOffers();
  const [confirmPause, setConfirmPause] = useState(false);
  const published = p.publishedAt !== null;
  const paused = p.offersPausedAt !== null;

  const setPublished = (next: boolean) =>
    publish.mutate(next, {
      onSuccess: () =>
        toast(
          next
            ? { title: 'Profile published', description: 'Patients can now find you in the directory.' }
            : { title: 'Profile unpublished', description: 'You are no longer listed in the directory.' },
        ),
      onError: (err) => toastError(errorMessage(err, 'The profile could not be changed.')),
    });
  const setPaused = (next: boolean) =>
    pause.mutate(next, {
      onSuccess: () => {
        setConfirmPause(false);
        toast(
          next
            ? {
                title: 'Offers paused',
                description: 'Patients cannot buy your offers; orders waiting for you were refunded.',
              }
            : { title: 'Offers resumed', description: 'Patients can buy your offers again.' },
        );
      },
      onError: (err) => toastError(errorMessage(err, 'Your offers could not be changed.')),
    });

  return (
    <Card>
      <CardHeader>
        <CardTitle>Directory listing</CardTitle>
        <CardDescription>
          Patients find you under Healthcare Providers and buy your offers under Available Services.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <section className="grid gap-2" aria-label="Publishing">
          <div className="flex flex-wrap items-center gap-2 text-sm">
            {published ? (
              <Badge className="bg-green-100 text-green-800">Published</Badge>
            ) : (
              <Badge className="bg-muted text-foreground">Not published</Badge>
            )}
            <span className="text-muted-foreground">
              {published
                ? `Listed in the directory since ${formatDate(p.publishedAt)}.`
                : 'Your profile is not listed in the directory.'}
            </span>
          </div>
          {!published && p.missing.length > 0 && (
            <Alert variant="info">
              <ShieldAlert aria-hidden="true" />
              <AlertDescription>
                {missingSentence(p.missing)} Save the profile below, then publish it.
              </AlertDescription>
            </Alert>
          )}
          {unsaved && (
            <p className="text-sm text-muted-foreground">
              You have unsaved changes: save the profile first so the directory shows them.
            </p>
          )}
          <div>
            {published ? (
              <Button variant="outline" disabled={publish.isPending} onClick={() => setPublished(false)}>
                <EyeOff aria-hidden="true" /> Unpublish profile
              </Button>
            ) : (
              <Button disabled={publish.isPending || p.missing.length > 0} onClick={() => setPublished(true)}>
                <Eye aria-hidden="true" /> Publish profile
              </Button>
            )}
          </div>
        </section>
        <section className="grid gap-2 border-t pt-4" aria-label="Offers on sale">
          <div className="flex flex-wrap items-center gap-2 text-sm">
            {paused ? (
              <Badge className="bg-yellow-100 text-yellow-800">Offers paused</Badge>
            ) : (
              <Badge className="bg-green-100 text-green-800">Offers active</Badge>
            )}
            <span className="text-muted-foreground">
              {paused
                ? `Paused since ${formatDate(p.offersPausedAt)}: patients cannot buy any of your offers.`
                : 'Patients can buy your live offers while your profile is published.'}
            </span>
          </div>
          <div>
            {paused ? (
              <Button variant="outline" disabled={pause.isPending} onClick={() => setPaused(false)}>
                <Play aria-hidden="true" /> Resume offers
              </Button>
            ) : (
              <Button variant="outline" onClick={() => setConfirmPause(true)}>
                <Pause aria-hidden="true" /> Pause offers
              </Button>
            )}
          </div>
        </section>
      </CardContent>
      <Dialog open={confirmPause} onOpenChange={setConfirmPause}>
        <DialogContent role="alertdialog">
          <DialogHeader>
            <DialogTitle>Pause your offers?</DialogTitle>
            <DialogDescription>
              While paused, patients cannot buy any of your offers. Orders already paid that you have not
              accepted yet are refunded to the patients at once, and they are told. Orders you have accepted
              go on.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setConfirmPause(false)}>
              Cancel
            </Button>
            <Button variant="destructive" disabled={pause.isPending} onClick={() => setPaused(true)}>
              Pause and refund waiting orders
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </Card>
  );
}

/**
 * Directory Profile (/professional/profile): a verified professional's own entry in the directory
 * (registration facts, the profile they complete, publishing, pausing) and their offers.
 */
export function DirectoryProfilePage() {
  const profile = useProfessionalProfile();
  const save = useSaveProfile();
  const [unsaved, setUnsaved] = useState(false);

  if (profile.isPending)
    return (
      <div className="flex justify-center py-16">
        <Spinner className="size-6" label="Loading your profile" />
      </div>
    );
  if (profile.isError)
    return (
      <Alert variant="destructive">
        <div className="grid gap-2">
          <AlertTitle>Your profile could not be loaded</AlertTitle>
          <AlertDescription>{errorMessage(profile.error)}</AlertDescription>
          <Button variant="outline" size="sm" className="w-fit" onClick={() => void profile.refetch()}>
            <RefreshCw aria-hidden="true" /> Try again
          </Button>
        </div>
      </Alert>
    );
  if (profile.data === null)
    return (
      <Card className="p-8 text-center text-muted-foreground">
        Your directory profile opens once an administrator has verified your account.
      </Card>
    );

  const p = profile.data;
  return (
    <div className="grid gap-6">
      <div className="grid gap-6 lg:grid-cols-2">
        <RegistrationFacts profile={p} />
        <Listing profile={p} unsaved={unsaved} />
      </div>
      <Card>
        <CardHeader>
          <CardTitle>Profile</CardTitle>
          <CardDescription>
            Shown to patients in Provider Details once published. A description, years of experience, a city
            and a country are needed to publish.
          </CardDescription>
        </CardHeader>
        <CardContent>
          <ProfileForm
            profile={p}
            saving={save.isPending}
            onDirtyChange={setUnsaved}
            onSave={(input) =>
              save.mutateAsync(input).then(
                () => toast({ title: 'Profile saved', description: 'Your directory profile was saved.' }),
                (err: unknown) => {
                  toastError(errorMessage(err, 'Your profile could not be saved.'));
                  throw err;
                },
              )
            }
          />
        </CardContent>
      </Card>
      <section className="grid gap-3" aria-labelledby="offers-heading">
        <div>
          <h2 id="offers-heading" className="text-lg font-semibold">
            Offers
          </h2>
          <p className="text-sm text-muted-foreground">
            The services you read, at your price, turnaround and modalities. They are sold while your profile
            is published and your offers are not paused.
          </p>
        </div>
        <OffersTable profile={p} />
      </section>
    </div>
  );
}
