import { zodResolver } from '@hookform/resolvers/zod';
import { INVITE_FAILED_MESSAGE, inviteSentMessage, inviteUserBodySchema } from '@mi/contracts/sharing';
import { Loader2 } from 'lucide-react';
import { useEffect, useId } from 'react';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { FormRow } from '@/components/form-row';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { toast } from '@/hooks/use-toast';
import { isApiError } from '@/lib/api-client';
import { useSendInvite } from '../api/send-invite';

type InviteValues = z.infer<typeof inviteUserBodySchema>;

/**
 * User menu → Invite User: emails someone a link to upload studies into the user's account. Send is
 * disabled while the email is empty, invalid or the request is pending.
 */
export function InviteUserDialog({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const id = useId();
  const send = useSendInvite();
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isValid },
  } = useForm<InviteValues>({
    resolver: zodResolver(inviteUserBodySchema),
    mode: 'onChange',
    defaultValues: { email: '' },
  });

  useEffect(() => {
    if (open) reset({ email: '' });
  }, [open, reset]);

  const onSubmit = ({ email }: InviteValues) =>
    send.mutate(email, {
      onSuccess: () => {
        toast({ title: 'Success', description: inviteSentMessage(email) });
        onOpenChange(false);
      },
      onError: (err) =>
        toast({
          title: 'Error',
          // A refusal the user can act on (too many invitations) is said as it is.
          description:
            isApiError(err, 'RATE_LIMITED') && err.serverMessage ? err.serverMessage : INVITE_FAILED_MESSAGE,
          variant: 'destructive',
        }),
    });

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Invite User</DialogTitle>
          <DialogDescription>
            We email them a link to upload their imaging studies straight into your account.
          </DialogDescription>
        </DialogHeader>
        <form id={`${id}-form`} onSubmit={handleSubmit(onSubmit)} noValidate className="grid gap-4">
          <FormRow label="Email" name="email" id={id} error={errors.email?.message}>
            <Input
              id={`${id}-email`}
              type="email"
              autoComplete="email"
              placeholder="name@example.com"
              aria-invalid={errors.email ? true : undefined}
              aria-describedby={`${id}-email-error`}
              {...register('email')}
            />
          </FormRow>
        </form>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline">Cancel</Button>
          </DialogClose>
          <Button type="submit" form={`${id}-form`} disabled={!isValid || send.isPending}>
            {send.isPending && <Loader2 className="animate-spin" aria-hidden="true" />}
            Send Invitation
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
