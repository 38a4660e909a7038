import type { LinkSummary } from '@mi/contracts/links';
import { useEffect, useId, useState } from 'react';
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
import { NativeSelect } from '@/components/ui/native-select';
import { toast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useUpdateLink } from '../api/update-link';
import {
  CUSTOM_EXPIRY,
  DEFAULT_EXPIRY,
  expiryChoices,
  expiryDate,
  expiryProblem,
  needsPasscode,
  toLocalInput,
} from '../utils/link-policy';

/** Why a link may not get this new end (null when it may); a link without a passcode stays within a day. */
export function extendProblem(link: LinkSummary, expiresAt: Date | null, now: Date): string | null {
  const problem = expiryProblem(link.mode, expiresAt, now);
  if (problem) return problem;
  if (!link.hasPasscode && needsPasscode(link.mode, expiresAt, now))
    return 'This link has no passcode, so it can last at most 24 hours from now. To share for longer, create a new link with a passcode.';
  return null;
}

/** Links page → Extend: a new end for a link, counted from now. */
export function ExtendLinkDialog({ link, onClose }: { link: LinkSummary | null; onClose: () => void }) {
  const id = useId();
  const update = useUpdateLink();
  const [expiry, setExpiry] = useState('');
  const [custom, setCustom] = useState('');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!link) return;
    setExpiry(DEFAULT_EXPIRY[link.mode]);
    setCustom('');
    setError(null);
  }, [link]);

  const now = new Date();
  const submit = () => {
    if (!link) return;
    const at = new Date();
    const expiresAt = expiryDate(expiry, custom, at);
    const problem = extendProblem(link, expiresAt, at);
    setError(problem);
    if (problem || !expiresAt) return;
    update.mutate(
      { id: link.id, body: { expiresAt: expiresAt.toISOString() } },
      {
        onSuccess: (updated) => {
          toast({
            title: 'Link extended',
            description: `It now works until ${formatDateTime(updated.expiresAt)}.`,
          });
          onClose();
        },
        onError: (err) => setError(errorMessage(err, 'The link could not be extended. Please try again.')),
      },
    );
  };

  return (
    <Dialog open={link !== null} onOpenChange={(open) => !open && !update.isPending && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Extend link</DialogTitle>
          <DialogDescription>
            {link ? `It now works until ${formatDateTime(link.expiresAt)}. ` : ''}Choose when it should end,
            from now.
          </DialogDescription>
        </DialogHeader>
        <form
          noValidate
          className="grid gap-4"
          aria-label="Extend link"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <div className="grid gap-2">
            <Label htmlFor={`${id}-expiry`}>New expiry</Label>
            <NativeSelect
              id={`${id}-expiry`}
              value={expiry}
              onChange={(e) => {
                setExpiry(e.target.value);
                setError(null);
              }}
            >
              {link &&
                expiryChoices(link.mode).map((choice) => (
                  <option key={choice.value} value={choice.value}>
                    {choice.label} from now
                  </option>
                ))}
              <option value={CUSTOM_EXPIRY}>Custom date and time…</option>
            </NativeSelect>
            {expiry === CUSTOM_EXPIRY && (
              <>
                <Label htmlFor={`${id}-custom`} className="sr-only">
                  Expires on
                </Label>
                <Input
                  id={`${id}-custom`}
                  type="datetime-local"
                  min={toLocalInput(now)}
                  value={custom}
                  onChange={(e) => {
                    setCustom(e.target.value);
                    setError(null);
                  }}
                  aria-invalid={error ? true : undefined}
                  aria-describedby={error ? `${id}-error` : undefined}
                />
              </>
            )}
            <FieldError id={`${id}-error`} message={error ?? undefined} />
          </div>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose} disabled={update.isPending}>
              Cancel
            </Button>
            <Button type="submit" disabled={update.isPending} aria-busy={update.isPending || undefined}>
              Extend
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
