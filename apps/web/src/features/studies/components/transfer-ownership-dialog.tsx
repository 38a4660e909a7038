import { zodResolver } from '@hookform/resolvers/zod';
import { emailSchema } from '@mi/contracts/rules';
import type { StudyListItem } from '@mi/contracts/studies';
import { useEffect, useId } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
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

const transferFormSchema = z.object({ requesterEmail: emailSchema });
type TransferValues = z.infer<typeof transferFormSchema>;

/**
 * 'Enter Email to transfer ownership': the email is checked when the field is left and then as it
 * changes; Transfer stays disabled until it is valid and while the transfer runs.
 */
export function TransferOwnershipDialog({
  study,
  pending,
  onCancel,
  onTransfer,
}: {
  study: StudyListItem | null;
  pending: boolean;
  onCancel: () => void;
  onTransfer: (study: StudyListItem, requesterEmail: string) => void;
}) {
  const id = useId();
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isValid },
  } = useForm<TransferValues>({
    resolver: zodResolver(transferFormSchema),
    mode: 'onTouched',
    defaultValues: { requesterEmail: '' },
  });

  useEffect(() => {
    if (study) reset({ requesterEmail: '' });
  }, [study, reset]);

  return (
    <Dialog open={study !== null} onOpenChange={(open) => !open && !pending && onCancel()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Enter Email to transfer ownership</DialogTitle>
          <DialogDescription>
            The new owner gets{' '}
            <span className="font-medium text-foreground">
              {study?.metadata.studyDescription || 'this study'}
            </span>
            , its storage and its shares; it leaves your studies.
          </DialogDescription>
        </DialogHeader>
        <form
          noValidate
          className="grid gap-4"
          aria-label="Transfer ownership"
          onSubmit={handleSubmit(({ requesterEmail }) => study && onTransfer(study, requesterEmail))}
        >
          <div className="grid gap-2">
            <Label htmlFor={`${id}-email`}>Email</Label>
            <Input
              id={`${id}-email`}
              type="email"
              inputMode="email"
              autoComplete="email"
              aria-invalid={errors.requesterEmail ? true : undefined}
              aria-describedby={errors.requesterEmail ? `${id}-email-error` : undefined}
              {...register('requesterEmail')}
            />
            <FieldError id={`${id}-email-error`} message={errors.requesterEmail?.message} />
          </div>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onCancel} disabled={pending}>
              Cancel
            </Button>
            <Button type="submit" disabled={!isValid || pending} aria-busy={pending || undefined}>
              Transfer
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
