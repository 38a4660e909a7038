import { changeEmailBodySchema } from '@mi/contracts/auth';
import { Loader2 } from 'lucide-react';
import { useEffect, useId, useState, type FormEvent } from 'react';
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
import { toast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useChangeEmail } from '../api/change-email';
import { useFreshProof } from '../hooks/use-fresh-proof';

/**
 * Settings → Personal Info → Change email: a confirmation link goes to the new address and the
 * account moves when it is opened (after "Confirm it's you" when the last proof is older than 5
 * minutes). The old address is told once it has moved.
 */
export function ChangeEmailDialog({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const id = useId();
  const change = useChangeEmail();
  const proof = useFreshProof();
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | undefined>();
  const { reset } = change;

  useEffect(() => {
    if (!open) return;
    setEmail('');
    setError(undefined);
    reset();
  }, [open, reset]);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = changeEmailBodySchema.safeParse({ newEmail: email });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    proof.run(() => change.mutateAsync(parsed.data.newEmail), {
      onSuccess: (res) => {
        toast({ title: 'Check your inbox', description: res.message });
        onOpenChange(false);
      },
      onError: (err) => setError(errorMessage(err)),
    });
  };

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Change email address</DialogTitle>
          <DialogDescription>
            We send a confirmation link to the new address; your account uses it once you open the link.
          </DialogDescription>
        </DialogHeader>
        <form onSubmit={onSubmit} noValidate className="grid gap-4" aria-label="Change email address">
          <div className="grid gap-2">
            <Label htmlFor={`${id}-email`}>New email address</Label>
            <Input
              id={`${id}-email`}
              type="email"
              autoComplete="email"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${id}-email-error` : undefined}
            />
            <FieldError id={`${id}-email-error`} message={error} />
          </div>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => onOpenChange(false)}>
              Cancel
            </Button>
            <Button type="submit" disabled={change.isPending}>
              {change.isPending && <Loader2 className="animate-spin" aria-hidden="true" />}
              Send confirmation link
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
      {proof.dialog}
    </Dialog>
  );
}
