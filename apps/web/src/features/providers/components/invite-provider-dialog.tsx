import { zodResolver } from '@hookform/resolvers/zod';
import { inviteProviderBodySchema } from '@mi/contracts/sharing';
import { useId } from 'react';
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
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useInviteProvider } from '../api/invite-provider';

type InviteValues = z.infer<typeof inviteProviderBodySchema>;

/** Invite New Provider: emails a provider who is not in the directory an invitation to join. */
export function InviteProviderDialog({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const id = useId();
  const invite = useInviteProvider();
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm<InviteValues>({ resolver: zodResolver(inviteProviderBodySchema), defaultValues: { to: '' } });

  const close = (next: boolean) => {
    if (!next) reset();
    onOpenChange(next);
  };

  const onSubmit = ({ to }: InviteValues) =>
    invite.mutate(to, {
      onSuccess: () => {
        toast({
          title: 'Invitation Sent',
          description: 'The healthcare provider has been invited to join the platform.',
        });
        close(false);
      },
      onError: (err) => toastError(errorMessage(err)),
    });
  const error = errors.to?.message;

  return (
    <Dialog open={open} onOpenChange={close}>
      <DialogContent>
        <form onSubmit={handleSubmit(onSubmit)} className="grid gap-4" noValidate>
          <DialogHeader>
            <DialogTitle>Invite New Provider</DialogTitle>
            <DialogDescription>
              We will email your healthcare provider an invitation to join the platform.
            </DialogDescription>
          </DialogHeader>
          <div className="grid gap-2">
            <Label htmlFor={`${id}-to`}>Email</Label>
            <Input
              id={`${id}-to`}
              type="email"
              autoComplete="email"
              placeholder="provider@example.com"
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${id}-to-error` : undefined}
              {...register('to')}
            />
            <FieldError id={`${id}-to-error`} message={error} />
          </div>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => close(false)}>
              Cancel
            </Button>
            <Button type="submit" disabled={invite.isPending}>
              {invite.isPending ? 'Sending…' : 'Send Invitation'}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
