import { renderHook } from '@testing-library/react';
import { useToast } from '@/hooks/use-toast';

/**
 * The toast the user sees, read through the app's own toast hook (the app shows one at a time).
 * Call it before the code under test runs; changes must happen inside `act`.
 */
export function watchToasts() {
  const hook = renderHook(() => useToast());
  return {
    get shown() {
      const open = hook.result.current.toasts.find((t) => t.open);
      return open ? { title: open.title, description: open.description, variant: open.variant } : null;
    },
    /** Closes whatever earlier tests left open. */
    clear() {
      hook.result.current.dismiss();
    },
  };
}
