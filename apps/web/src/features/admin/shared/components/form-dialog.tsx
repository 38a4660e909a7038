import type { FormEventHandler, ReactNode } from 'react';
import { Button, type ButtonProps } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';

/** What a create/edit dialog shows: a record to edit, 'new' for a blank form, or null while closed. */
export type RecordDraft<T extends { id: string }> = T | 'new' | null;

/** A key for the dialog of `draft`: a new key remounts the form, so its fields start from that record. */
export function recordFormKey(draft: RecordDraft<{ id: string }>): string {
  return draft === null ? 'closed' : draft === 'new' ? 'new' : draft.id;
}

/**
 * A dialog that is one form: title and description, the fields (`children`), then Cancel and the
 * submit button, which stays disabled while the change is `pending`. Closing it any way (Cancel,
 * Escape, the close button, outside) calls `onClose`.
 */
export function FormDialog({
  open,
  onClose,
  onSubmit,
  title,
  description,
  submitLabel,
  submitVariant,
  pending,
  className,
  children,
}: {
  open: boolean;
  onClose: () => void;
  onSubmit: FormEventHandler<HTMLFormElement>;
  title: ReactNode;
  description: ReactNode;
  submitLabel: ReactNode;
  submitVariant?: ButtonProps['variant'];
  pending: boolean;
  /** The dialog's width, e.g. 'max-w-2xl' for a form of two columns. */
  className?: string;
  children: ReactNode;
}) {
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onClose()}>
      <DialogContent className={className}>
        <form onSubmit={onSubmit} className="grid gap-4" noValidate>
          <DialogHeader>
            <DialogTitle>{title}</DialogTitle>
            <DialogDescription>{description}</DialogDescription>
          </DialogHeader>
          {children}
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" variant={submitVariant} disabled={pending}>
              {submitLabel}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
