import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';

/** A failed admin change: the error toast with the server's message. */
export const toastFailure = (err: unknown) => toastError(errorMessage(err));

/**
 * The outcome of a change to a named record: on success a toast titled `title` naming the record
 * (then `onSaved`, e.g. to close the form); on failure the error toast.
 */
export function savedToasts(title: string, onSaved?: () => void) {
  return {
    onSuccess: (res: { data: { name: string } }) => {
      toast({ title, description: res.data.name });
      onSaved?.();
    },
    onError: toastFailure,
  };
}
