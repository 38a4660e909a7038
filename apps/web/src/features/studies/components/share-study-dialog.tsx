import { SHARE_EMAIL_MESSAGE, SHARE_NOTHING_SELECTED_MESSAGE, type Provider } from '@mi/contracts/sharing';
import type { StudyListItem } from '@mi/contracts/studies';
import { Loader2, Mail, UserRound, X } from 'lucide-react';
import { useEffect, useId, useMemo, useState, type KeyboardEvent } from 'react';
import { Link } from 'react-router';
import { DeidentifiedOption } from '@/components/deidentify-preview';
import { listStatus, ListStatus } from '@/components/list/list-status';
import { SharingConsent } from '@/components/sharing-consent';
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
import { paths, withQuery } from '@/config/paths';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import { cn } from '@/lib/utils';
import { useRevokeShare, useShareStudy, useStudyShares, useUserProviders } from '../api/study-shares';
import {
  addProvider,
  addTypedEmail,
  emailRejection,
  filterProviders,
  isProviderDisabled,
  isValidEmail,
  providerEmail,
  recipientEmail,
  recipientKey,
  shareBody,
  sharedDescription,
  sharedEmails,
  shareEmail,
  shareHint,
  submissionRecipients,
  suggestionHeading,
  type Recipient,
} from '../utils/share-recipients';

/** One entry of the suggestion list: a provider, or the typed address. */
type Option =
  | { kind: 'provider'; provider: Provider; disabled: boolean }
  | { kind: 'email'; email: string; disabled: boolean };

function RecipientChip({ recipient, onRemove }: { recipient: Recipient; onRemove: () => void }) {
  const label = recipient.kind === 'provider' ? recipient.provider.name : recipient.email;
  return (
    <li className="inline-flex max-w-full items-center gap-1 rounded-full border bg-accent py-0.5 pl-2.5 pr-1 text-xs font-medium text-accent-foreground">
      {recipient.kind === 'provider' ? (
        <UserRound className="size-3.5 shrink-0" aria-hidden="true" />
      ) : (
        <Mail className="size-3.5 shrink-0" aria-hidden="true" />
      )}
      <span className="truncate" title={recipientEmail(recipient)}>
        {label}
      </span>
      <button
        type="button"
        onClick={onRemove}
        aria-label={`Remove ${label}`}
        className="rounded-full p-0.5 hover:bg-background focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        <X className="size-3.5" aria-hidden="true" />
      </button>
    </li>
  );
}

/**
 * The Studies list's Share dialog: pick providers of the user's network or type any addresses, see who
 * already has the study and revoke them. Each recipient is shared with by its own call.
 */
export function ShareStudyDialog({
  study,
  userId,
  sharingAllowed,
  onClose,
}: {
  study: StudyListItem | null;
  userId: string;
  /** The user's Share Medical Records setting; off, nothing can be shared. */
  sharingAllowed: boolean;
  onClose: () => void;
}) {
  const id = useId();
  const open = study !== null;
  const shares = useStudyShares(study?.id ?? null);
  const providers = useUserProviders(open && sharingAllowed);
  const shareStudy = useShareStudy(userId);
  const revoke = useRevokeShare();
  const [text, setText] = useState('');
  const [selected, setSelected] = useState<Recipient[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [listOpen, setListOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [deidentified, setDeidentified] = useState(false);

  // Each opening starts empty.
  useEffect(() => {
    if (!open) return;
    setText('');
    setSelected([]);
    setError(null);
    setListOpen(false);
    setActive(-1);
    setDeidentified(false);
  }, [open, study?.id]);

  // A failed read of the current shares shows as an error under Currently Shared With, not as nobody.
  const current = useMemo(() => (shares.isError ? [] : (shares.data ?? [])), [shares.data, shares.isError]);
  const shared = useMemo(() => sharedEmails(current), [current]);
  const matches = useMemo(() => filterProviders(providers.data ?? [], text), [providers.data, text]);
  const options: Option[] = useMemo(() => {
    const list: Option[] = matches.map((provider) => ({
      kind: 'provider',
      provider,
      disabled: isProviderDisabled(provider, selected, shared),
    }));
    if (isValidEmail(text))
      list.push({
        kind: 'email',
        email: text.trim(),
        disabled: emailRejection(text, selected, shared) !== null,
      });
    return list;
  }, [matches, selected, shared, text]);
  const hint = shareHint(text, selected, matches.length);
  const recipients = submissionRecipients(text, selected, shared);
  const busy = shareStudy.isPending;
  const canSubmit = sharingAllowed && !busy && recipients.length > 0;
  const listId = `${id}-suggestions`;
  const showList = sharingAllowed && listOpen && options.length > 0;

  const choose = (option: Option) => {
    if (option.disabled) return;
    const next =
      option.kind === 'provider'
        ? addProvider(option.provider, selected, shared)
        : addTypedEmail(option.email, selected, shared);
    if (!next) return;
    setSelected(next);
    setText('');
    setActive(-1);
    setError(null);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setListOpen(true);
      if (!options.length) return;
      const last = options.length - 1;
      setActive((i) => (event.key === 'ArrowDown' ? (i >= last ? 0 : i + 1) : i <= 0 ? last : i - 1));
      return;
    }
    if (event.key === 'Escape' && listOpen) {
      // The first Escape closes the suggestions, the next one the dialog.
      event.preventDefault();
      event.stopPropagation();
      setListOpen(false);
      return;
    }
    if (event.key !== 'Enter') return;
    // Enter never submits the form: it picks the highlighted suggestion or adds the typed address.
    event.preventDefault();
    const option = showList && active >= 0 ? options[active] : undefined;
    if (option) {
      choose(option);
      return;
    }
    // In an empty field Enter submits (and says what is missing when nothing is selected).
    if (!text.trim()) {
      submit();
      return;
    }
    const next = addTypedEmail(text, selected, shared);
    if (next) {
      setSelected(next);
      setText('');
      setError(null);
      return;
    }
    const why = emailRejection(text, selected, shared);
    if (why === 'invalid') {
      // Not an address: a single provider the text matches is taken, as if it had been clicked.
      const enabled = options.filter((o) => o.kind === 'provider' && !o.disabled);
      if (enabled.length === 1 && matches.length === 1) choose(enabled[0]!);
      else if (text.includes('@')) setError(SHARE_EMAIL_MESSAGE);
      return;
    }
    setError(
      why === 'shared'
        ? `This study is already shared with ${text.trim()}.`
        : `${text.trim()} is already selected.`,
    );
  };

  const submit = () => {
    if (!study || !sharingAllowed) return;
    if (recipients.length === 0) {
      setError(
        emailRejection(text, selected, shared) === 'shared'
          ? `This study is already shared with ${text.trim()}.`
          : SHARE_NOTHING_SELECTED_MESSAGE,
      );
      return;
    }
    setError(null);
    shareStudy.mutate(
      recipients.map((r) => ({ ...shareBody(study.id, r), ...(deidentified ? { deidentified: true } : {}) })),
      {
        onSuccess: (results) => {
          const done = recipients.filter((_, i) => results[i]?.status === 'fulfilled');
          const failed = recipients.filter((_, i) => results[i]?.status === 'rejected');
          const waiting = results.find((r) => r.status === 'fulfilled' && r.value.pending);
          if (waiting?.status === 'fulfilled')
            // The copy is being made: the share follows, and the owner is told if it cannot.
            toast({ title: 'Making a de-identified copy', description: waiting.value.message });
          else if (done.length)
            toast({
              title: 'Study Shared',
              description: deidentified
                ? `A de-identified copy was shared with ${done.map(recipientEmail).join(', ')}.`
                : sharedDescription(done.map(recipientEmail)),
            });
          if (!failed.length) {
            onClose();
            return;
          }
          // What did not go through stays selected, so the user can retry or remove it.
          const firstFailure = results.find((r) => r.status === 'rejected');
          toastError(errorMessage(firstFailure?.status === 'rejected' ? firstFailure.reason : undefined));
          setSelected(failed);
          setText('');
        },
        onError: (err) => toastError(errorMessage(err)),
      },
    );
  };

  const revokeShare = (shareId: string) => {
    if (!study) return;
    revoke.mutate(
      { shareId, studyId: study.id },
      {
        onSuccess: () => toast({ title: 'Access Removed', description: 'Provider access revoked.' }),
        onError: (err) => toastError(errorMessage(err)),
      },
    );
  };

  return (
    <Dialog open={open} onOpenChange={(next) => !next && !busy && onClose()}>
      <DialogContent className="sm:max-w-xl">
        <DialogHeader>
          <DialogTitle>Share Study</DialogTitle>
          <DialogDescription>
            Share{' '}
            <span className="font-medium text-foreground">
              {study?.metadata.studyDescription || 'this study'}
            </span>{' '}
            with your providers or anyone by email. They can view it and ask you for ownership.
          </DialogDescription>
        </DialogHeader>

        {!sharingAllowed && <SharingConsent userId={userId} blocked="this study cannot be shared" />}

        <form
          noValidate
          className="grid gap-4"
          aria-label="Share study"
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
        >
          <div className="grid gap-2">
            <Label htmlFor={`${id}-email`}>Email</Label>
            {selected.length > 0 && (
              <ul aria-label="Selected recipients" className="flex flex-wrap gap-1.5">
                {selected.map((r) => (
                  <RecipientChip
                    key={recipientKey(r)}
                    recipient={r}
                    onRemove={() =>
                      setSelected((list) => list.filter((x) => recipientKey(x) !== recipientKey(r)))
                    }
                  />
                ))}
              </ul>
            )}
            <div className="relative">
              <Input
                id={`${id}-email`}
                type="email"
                inputMode="email"
                autoComplete="off"
                placeholder="doctor@example.com"
                role="combobox"
                aria-expanded={showList}
                aria-controls={listId}
                aria-autocomplete="list"
                aria-activedescendant={showList && active >= 0 ? `${listId}-${active}` : undefined}
                aria-invalid={error ? true : undefined}
                aria-describedby={`${id}-hint ${error ? `${id}-error` : ''}`.trim()}
                disabled={!sharingAllowed || busy}
                value={text}
                onChange={(e) => {
                  setText(e.target.value);
                  setListOpen(true);
                  setActive(-1);
                  setError(null);
                }}
                onFocus={() => setListOpen(true)}
                onBlur={() => setListOpen(false)}
                onClick={() => setListOpen(true)}
                onKeyDown={onKeyDown}
              />
              {showList && (
                <div className="absolute inset-x-0 top-full z-10 mt-1 max-h-60 overflow-y-auto rounded-md border bg-card p-1 shadow-md">
                  {matches.length > 0 && (
                    <p
                      className="px-2 py-1.5 text-xs font-medium text-muted-foreground"
                      id={`${listId}-heading`}
                    >
                      {suggestionHeading(text)}
                    </p>
                  )}
                  <ul id={listId} role="listbox" aria-label="Suggestions" className="grid gap-0.5">
                    {options.map((option, index) => (
                      <li
                        key={option.kind === 'provider' ? option.provider.id : 'email'}
                        id={`${listId}-${index}`}
                        role="option"
                        aria-selected={index === active}
                        aria-disabled={option.disabled || undefined}
                        // Keeps the focus in the field, so the list stays open after a pick.
                        onMouseDown={(e) => e.preventDefault()}
                        onClick={() => choose(option)}
                        className={cn(
                          'cursor-pointer rounded-sm px-2 py-1.5 text-sm',
                          index === active && 'bg-accent',
                          option.disabled ? 'cursor-not-allowed opacity-50' : 'hover:bg-accent',
                        )}
                      >
                        {option.kind === 'provider' ? (
                          <span className="grid min-w-0">
                            <span className="truncate font-medium">{option.provider.name}</span>
                            <span className="truncate text-xs text-muted-foreground">
                              {[option.provider.specialty, providerEmail(option.provider)]
                                .filter(Boolean)
                                .join(' · ')}
                            </span>
                          </span>
                        ) : (
                          <span className="grid min-w-0">
                            <span className="text-xs text-muted-foreground">Add custom email address</span>
                            <span className="truncate font-medium">Share with {option.email}</span>
                          </span>
                        )}
                      </li>
                    ))}
                  </ul>
                </div>
              )}
            </div>
            <p id={`${id}-hint`} className="text-xs text-muted-foreground" aria-live="polite">
              {sharingAllowed ? hint : null}
            </p>
            <FieldError id={`${id}-error`} message={error ?? undefined} />
            {sharingAllowed && study && (
              <p className="text-xs">
                <Link
                  to={withQuery(paths.providers, { studyId: study.id })}
                  className="font-medium text-primary hover:underline"
                  onClick={onClose}
                >
                  Choose from your Healthcare Providers
                </Link>
              </p>
            )}
          </div>

          {sharingAllowed && study?.deidentified && (
            <p className="text-sm text-muted-foreground">
              This study is a de-identified copy: it is shared as it is.
            </p>
          )}
          {sharingAllowed && study && !study.deidentified && (
            <DeidentifiedOption
              studyId={study.id}
              label="Share a de-identified copy"
              checked={deidentified}
              disabled={busy}
              onCheckedChange={setDeidentified}
            />
          )}

          <section aria-labelledby={`${id}-current`} className="grid gap-2">
            <h3 id={`${id}-current`} className="text-sm font-medium">
              Currently Shared With
            </h3>
            <ListStatus
              query={shares}
              count={current.length}
              loading="Loading who the study is shared with"
              error="Who the study is shared with could not be loaded"
              empty={<p className="text-sm text-muted-foreground">Not shared with anyone yet.</p>}
              className="py-2"
            />
            {listStatus(shares, current.length) === null && (
              <ul className="grid max-h-48 gap-2 overflow-y-auto" aria-label="Currently Shared With">
                {current.map((share) => (
                  <li
                    key={share.id}
                    className="flex flex-col gap-2 rounded-md border p-2.5 text-sm sm:flex-row sm:items-center sm:justify-between"
                  >
                    <div className="min-w-0">
                      <p className="truncate font-medium" title={shareEmail(share)}>
                        {shareEmail(share)}
                      </p>
                      <p className="text-xs text-muted-foreground">
                        Shared on: {formatDate(share.createdAt)}
                      </p>
                    </div>
                    <Button
                      type="button"
                      variant="outline"
                      size="sm"
                      className="shrink-0 text-destructive hover:text-destructive"
                      disabled={revoke.isPending}
                      aria-label={`Revoke Access for ${shareEmail(share)}`}
                      onClick={() => revokeShare(share.id)}
                    >
                      Revoke Access
                    </Button>
                  </li>
                ))}
              </ul>
            )}
          </section>

          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" disabled={!canSubmit} aria-busy={busy || undefined}>
              {busy && <Loader2 className="animate-spin" aria-hidden="true" />}
              Share Study
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
