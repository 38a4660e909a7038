import { zodResolver } from '@hookform/resolvers/zod';
import { totpConfirmBodySchema } from '@mi/contracts/auth';
import { Copy, Loader2 } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
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
import { Spinner } from '@/components/ui/spinner';
import { toast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useConfirmTotp } from '../api/confirm-totp';
import { useSetupTotp } from '../api/setup-totp';
import { useFreshProof } from '../hooks/use-fresh-proof';

// The server's rule: six digits.
type TotpCodeValues = z.infer<typeof totpConfirmBodySchema>;

/**
 * Authenticator-app enrolment: scan the QR code (or type the key), confirm with a first code,
 * then keep the one-time recovery codes. It replaces the method and the recovery codes, so it asks
 * "Confirm it's you" first when the last proof of identity is older than 5 minutes.
 */
export function TotpSetupDialog({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const id = useId();
  const setup = useSetupTotp();
  const confirm = useConfirmTotp();
  const {
    register,
    handleSubmit,
    reset: resetForm,
    watch,
    formState: { errors },
  } = useForm<TotpCodeValues>({ resolver: zodResolver(totpConfirmBodySchema), defaultValues: { code: '' } });
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const { mutateAsync: start, reset: resetSetup } = setup;
  const { reset: resetConfirm } = confirm;
  const { run: withProof, dialog: proofDialog } = useFreshProof();

  useEffect(() => {
    if (!open) return;
    resetForm({ code: '' });
    setRecoveryCodes(null);
    resetConfirm();
    resetSetup();
    withProof(() => start());
  }, [open, start, resetSetup, resetConfirm, resetForm, withProof]);

  const onSubmit = ({ code }: TotpCodeValues) => {
    withProof(() => confirm.mutateAsync(code), {
      onSuccess: (res) => {
        setRecoveryCodes(res.recoveryCodes);
        toast({ title: 'Update Completed', description: 'Two Factor Auth method updated successfully.' });
      },
    });
  };

  const codeError = errors.code?.message ?? (confirm.isError ? errorMessage(confirm.error) : undefined);

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Set up an authenticator app</DialogTitle>
          <DialogDescription>
            {recoveryCodes
              ? 'Save these recovery codes somewhere safe. Each one signs you in once if you lose your device.'
              : 'Scan the QR code with an authenticator app, then enter the 6-digit code it shows.'}
          </DialogDescription>
        </DialogHeader>
        {recoveryCodes ? (
          <>
            <ul
              className="grid grid-cols-2 gap-2 rounded-md bg-muted p-4 font-mono text-sm"
              aria-label="Recovery codes"
            >
              {recoveryCodes.map((c) => (
                <li key={c}>{c}</li>
              ))}
            </ul>
            <DialogFooter>
              <Button
                variant="outline"
                onClick={() =>
                  void navigator.clipboard?.writeText(recoveryCodes.join('\n')).catch(() => undefined)
                }
              >
                <Copy aria-hidden="true" /> Copy
              </Button>
              <Button onClick={() => onOpenChange(false)}>Done</Button>
            </DialogFooter>
          </>
        ) : setup.isPending || setup.isIdle ? (
          <div className="flex justify-center py-8">
            <Spinner className="size-6" label="Preparing your authenticator key" />
          </div>
        ) : setup.isError ? (
          <p role="alert" className="text-sm text-destructive">
            {errorMessage(setup.error)}
          </p>
        ) : (
          <form onSubmit={handleSubmit(onSubmit)} className="grid gap-4" noValidate>
            <img
              src={setup.data.qrCodeDataUrl}
              alt="QR code for your authenticator app"
              width={200}
              height={200}
              className="mx-auto rounded-md border bg-white"
            />
            <p className="text-center text-xs text-muted-foreground">
              Can&apos;t scan? Enter this key:{' '}
              <code className="break-all font-mono text-foreground">{setup.data.secret}</code>
            </p>
            <div className="grid gap-2">
              <Label htmlFor={`${id}-code`}>Authentication code</Label>
              <Input
                id={`${id}-code`}
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={6}
                aria-invalid={codeError ? true : undefined}
                aria-describedby={codeError ? `${id}-code-error` : undefined}
                {...register('code')}
              />
              <FieldError id={`${id}-code-error`} message={codeError} />
            </div>
            <DialogFooter>
              <Button type="button" variant="outline" onClick={() => onOpenChange(false)}>
                Cancel
              </Button>
              <Button type="submit" disabled={confirm.isPending || watch('code').trim().length !== 6}>
                {confirm.isPending && <Loader2 className="animate-spin" aria-hidden="true" />}
                Verify and Enable
              </Button>
            </DialogFooter>
          </form>
        )}
      </DialogContent>
      {proofDialog}
    </Dialog>
  );
}
