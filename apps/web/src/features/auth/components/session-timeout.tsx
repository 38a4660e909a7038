import { useQueryClient } from '@tanstack/react-query';
import { Clock } from 'lucide-react';
import { Dialog as DialogPrimitive } from 'radix-ui';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { toast } from '@/hooks/use-toast';
import { meQueryOptions } from '../api/get-me';
import { useLogout } from '../api/logout';
import { refreshSession } from '../api/refresh-session';

/** Events that count as activity, throttled to once per second. */
const ACTIVITY_EVENTS = ['mousedown', 'keydown', 'keypress', 'touchstart', 'click'] as const;
const ACTIVITY_THROTTLE_MS = 1_000;
const TICK_MS = 500;

/** 90 → '1:30'. */
function formatRemaining(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * The inactivity timer, mounted only while someone is signed in: after
 * `idleMinutes` without activity the user is signed out; `warningMinutes` before that the
 * 'Session Timeout Warning' dialog counts down. The timings come from the server (GET
 * /api/config), which enforces the same idle timeout on its side. While the user is active, the
 * server session is kept alive with a light request now and then.
 */
export function SessionTimeout({
  idleMinutes,
  warningMinutes,
}: {
  idleMinutes: number;
  warningMinutes: number;
}) {
  const idleMs = idleMinutes * 60_000;
  const warningMs = Math.min(warningMinutes * 60_000, idleMs);
  const queryClient = useQueryClient();
  const logout = useLogout();
  const lastActivity = useRef(Date.now());
  const lastServerContact = useRef(Date.now());
  const lastThrottled = useRef(0);
  const [remainingMs, setRemainingMs] = useState<number | null>(null);
  const [extending, setExtending] = useState(false);
  const expired = useRef(false);
  const warningOpen = remainingMs !== null;
  const warningOpenRef = useRef(false);
  warningOpenRef.current = warningOpen;

  const expire = useCallback(() => {
    if (expired.current) return;
    expired.current = true;
    setRemainingMs(null);
    logout.mutate({ reason: 'inactivity' });
  }, [logout]);

  // Activity resets the timer (not while the warning asks for an explicit choice).
  useEffect(() => {
    const onActivity = () => {
      const now = Date.now();
      if (now - lastThrottled.current < ACTIVITY_THROTTLE_MS || warningOpenRef.current) return;
      lastThrottled.current = now;
      lastActivity.current = now;
      // Keep the server's idle clock in step with real activity, without rotating tokens.
      if (now - lastServerContact.current > idleMs / 3) {
        lastServerContact.current = now;
        void queryClient.fetchQuery({ ...meQueryOptions(), staleTime: 0 }).catch(() => undefined);
      }
    };
    for (const name of ACTIVITY_EVENTS)
      window.addEventListener(name, onActivity, { capture: true, passive: true });
    return () => {
      for (const name of ACTIVITY_EVENTS) window.removeEventListener(name, onActivity, { capture: true });
    };
  }, [idleMs, queryClient]);

  useEffect(() => {
    const timer = setInterval(() => {
      const idleFor = Date.now() - lastActivity.current;
      if (idleFor >= idleMs) expire();
      else if (idleFor >= idleMs - warningMs) setRemainingMs(idleMs - idleFor);
      else if (warningOpenRef.current) setRemainingMs(null);
    }, TICK_MS);
    return () => clearInterval(timer);
  }, [idleMs, warningMs, expire]);

  const stayLoggedIn = async () => {
    setExtending(true);
    try {
      await refreshSession();
    } catch {
      setExtending(false);
      expire();
      return;
    }
    setExtending(false);
    const now = Date.now();
    lastActivity.current = now;
    lastServerContact.current = now;
    setRemainingMs(null);
    toast({ title: 'Session Extended', description: 'Your session has been extended for another hour.' });
  };

  return (
    <DialogPrimitive.Root open={warningOpen}>
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className="fixed inset-0 z-[60] bg-slate-900/50" />
        <DialogPrimitive.Content
          role="alertdialog"
          onEscapeKeyDown={(e) => e.preventDefault()}
          onPointerDownOutside={(e) => e.preventDefault()}
          onInteractOutside={(e) => e.preventDefault()}
          className="fixed left-1/2 top-1/2 z-[60] grid w-[calc(100%-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 gap-4 rounded-lg border bg-card p-6 shadow-lg focus:outline-none"
        >
          <div className="flex items-start gap-3">
            <span className="flex size-10 shrink-0 items-center justify-center rounded-full bg-accent text-accent-foreground">
              <Clock className="size-5" aria-hidden="true" />
            </span>
            <div className="grid gap-1.5">
              <DialogPrimitive.Title className="text-lg font-semibold leading-tight">
                Session Timeout Warning
              </DialogPrimitive.Title>
              <DialogPrimitive.Description className="text-sm text-muted-foreground">
                You have been inactive for a while. For your security you will be logged out in{' '}
                <span className="font-semibold tabular-nums text-foreground" data-testid="session-countdown">
                  {formatRemaining(remainingMs ?? 0)}
                </span>
                .
              </DialogPrimitive.Description>
            </div>
          </div>
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <Button variant="outline" onClick={() => logout.mutate()} disabled={logout.isPending}>
              Logout Now
            </Button>
            <Button onClick={stayLoggedIn} disabled={extending} autoFocus>
              Stay Logged In
            </Button>
          </div>
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}
