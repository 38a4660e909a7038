import { useEffect, useState, type ReactNode } from 'react';
import type { ToastActionElement, ToastVariant } from '@/components/ui/toast';

/** One toast at a time; a dismissed toast is removed from memory after 1,000,000 ms. */
const TOAST_LIMIT = 1;
const TOAST_REMOVE_DELAY = 1_000_000;

export interface ToastInput {
  title?: ReactNode;
  description?: ReactNode;
  action?: ToastActionElement;
  variant?: ToastVariant;
}

export interface ToasterToast extends ToastInput {
  id: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

interface State {
  toasts: ToasterToast[];
}

let count = 0;
function genId(): string {
  count = (count + 1) % Number.MAX_SAFE_INTEGER;
  return String(count);
}

const removeTimeouts = new Map<string, ReturnType<typeof setTimeout>>();
const listeners = new Set<(state: State) => void>();
let memoryState: State = { toasts: [] };

function setState(next: State): void {
  memoryState = next;
  listeners.forEach((listener) => listener(memoryState));
}

function scheduleRemoval(id: string): void {
  if (removeTimeouts.has(id)) return;
  removeTimeouts.set(
    id,
    setTimeout(() => {
      removeTimeouts.delete(id);
      setState({ toasts: memoryState.toasts.filter((t) => t.id !== id) });
    }, TOAST_REMOVE_DELAY),
  );
}

function dismiss(id?: string): void {
  for (const t of memoryState.toasts) if (id === undefined || t.id === id) scheduleRemoval(t.id);
  setState({
    toasts: memoryState.toasts.map((t) => (id === undefined || t.id === id ? { ...t, open: false } : t)),
  });
}

/** Shows a toast (replacing the current one: the limit is one). */
export function toast(input: ToastInput): { id: string; dismiss: () => void } {
  const id = genId();
  const next: ToasterToast = {
    ...input,
    id,
    open: true,
    onOpenChange: (open) => {
      if (!open) dismiss(id);
    },
  };
  setState({ toasts: [next, ...memoryState.toasts].slice(0, TOAST_LIMIT) });
  return { id, dismiss: () => dismiss(id) };
}

/** The failure toast: title 'Error', destructive, default text 'An error occurred'. */
export function toastError(description?: string | null): void {
  toast({ title: 'Error', description: description || 'An error occurred', variant: 'destructive' });
}

export function useToast() {
  const [state, setLocal] = useState<State>(memoryState);
  useEffect(() => {
    listeners.add(setLocal);
    return () => {
      listeners.delete(setLocal);
    };
  }, []);
  return { ...state, toast, dismiss };
}
