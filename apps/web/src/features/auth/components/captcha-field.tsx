import type { PublicConfig } from '@mi/contracts/auth';
import { EMAIL_PATTERN } from '@mi/contracts/rules';
import type { AltchaWidgetElement } from 'altcha/types/generic';
import type {} from 'altcha/types/react';
import { useCallback, useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import { Spinner } from '@/components/ui/spinner';

/** What a form needs from the captcha: a token to send (null when there is none) and a reset after use. */
export interface CaptchaHandle {
  getToken: () => Promise<string | null>;
  reset: () => void;
}

interface CaptchaFieldProps {
  /** Undefined while the public config is still loading. */
  captcha: PublicConfig['captcha'] | undefined;
  /** reCAPTCHA v3 action name. */
  action: string;
  /**
   * Sign-in only: the email being signed in to. The server makes the challenge harder for an email
   * with many failed sign-ins, so the next challenge is asked for that email.
   */
  email?: string;
  ref?: Ref<CaptchaHandle>;
}

export function CaptchaField({ captcha, action, email, ref }: CaptchaFieldProps) {
  if (!captcha) return <CaptchaLoading />;
  if (captcha.provider === 'altcha') {
    // A challenge is asked for an email only once it is a whole address, not for every keystroke.
    const typed = email?.trim();
    const url =
      typed && EMAIL_PATTERN.test(typed)
        ? `${captcha.challengeUrl}?${new URLSearchParams({ email: typed }).toString()}`
        : captcha.challengeUrl;
    return <AltchaField challengeUrl={url} ref={ref} />;
  }
  return <RecaptchaField siteKey={captcha.siteKey} action={action} ref={ref} />;
}

type AltchaState = 'unverified' | 'verifying' | 'verified' | 'expired' | 'error' | 'code';
const OUTCOME_TIMEOUT_MS = 60_000;
/** How long the email must rest before its challenge is asked for and solved in the background. */
const SETTLE_MS = 500;

/**
 * ALTCHA proof of work: solved in the background as soon as the form shows (auto="onload"), and
 * again for the challenge of the typed email once it rests, so a sign-in to an email the server
 * currently asks more work of is not first sent with a solution it must refuse. A solution is only
 * handed out for the challenge URL in force at submit.
 */
function AltchaField({ challengeUrl, ref }: { challengeUrl: string; ref?: Ref<CaptchaHandle> }) {
  const [loaded, setLoaded] = useState(false);
  const [loadFailed, setLoadFailed] = useState(false);
  const widgetRef = useRef<AltchaWidgetElement | null>(null);
  const stateRef = useRef<AltchaState>('unverified');
  // The challenge URL wanted now; the kept payload and the URL it answers; the URL the widget is
  // solving on its own (on load, or when clicked); and the solve this component asked for.
  const urlRef = useRef(challengeUrl);
  const payloadRef = useRef<string | null>(null);
  const solvedRef = useRef<string | null>(null);
  const solvingRef = useRef<string | null>(null);
  const ownRef = useRef<{ url: string; promise: Promise<string | null> } | null>(null);
  urlRef.current = challengeUrl;

  useEffect(() => {
    let active = true;
    import('../utils/load-altcha').then(
      () => active && setLoaded(true),
      () => active && setLoadFailed(true),
    );
    return () => {
      active = false;
    };
  }, []);

  const forget = () => {
    payloadRef.current = null;
    solvedRef.current = null;
  };

  const attach = useCallback((el: AltchaWidgetElement | null) => {
    widgetRef.current = el;
    if (!el) return;
    const onState = (event: Event) => {
      const detail = (event as CustomEvent<{ state: AltchaState; payload?: string | null }>).detail;
      stateRef.current = detail.state;
      if (detail.state === 'expired') forget();
      // A solve of ours records its own result (a superseded one may still report here).
      if (ownRef.current) return;
      const configured = () => {
        const challenge = el.getConfiguration?.().challenge;
        return typeof challenge === 'string' ? challenge : urlRef.current;
      };
      if (detail.state === 'verifying') solvingRef.current = configured();
      else if (detail.state === 'verified' && detail.payload) {
        payloadRef.current = detail.payload;
        solvedRef.current = solvingRef.current ?? configured();
      } else forget();
    };
    el.addEventListener('statechange', onState);
    return () => el.removeEventListener('statechange', onState);
  }, []);

  /** Drops any solution and solves a fresh challenge from the current URL. */
  const solve = useCallback((): Promise<string | null> => {
    const widget = widgetRef.current;
    forget();
    if (!widget || typeof widget.verify !== 'function') return Promise.resolve(null);
    const url = urlRef.current;
    const own: { url: string; promise: Promise<string | null> } = { url, promise: Promise.resolve(null) };
    ownRef.current = own;
    own.promise = (async () => {
      // One verification at a time: two at once in one widget can end with neither giving a payload.
      if (stateRef.current === 'verifying') await waitForOutcome(widget);
      // A verification can still fail (a worker lost, a challenge expired): try once more.
      for (let attempt = 0; attempt < 2 && ownRef.current === own; attempt++) {
        await widget.configure?.({ challenge: url });
        widget.reset?.();
        const result = await widget.verify().catch(() => null);
        if (ownRef.current !== own) return null;
        if (result?.payload) {
          ownRef.current = null;
          payloadRef.current = result.payload;
          solvedRef.current = url;
          return url === urlRef.current ? result.payload : null;
        }
      }
      if (ownRef.current === own) ownRef.current = null;
      return null;
    })();
    return own.promise;
  }, []);

  // Once the typed email rests, solve its challenge before the user submits.
  useEffect(() => {
    if (!loaded) return;
    const timer = setTimeout(() => {
      const current =
        solvedRef.current === challengeUrl ||
        ownRef.current?.url === challengeUrl ||
        (stateRef.current === 'verifying' && solvingRef.current === challengeUrl);
      if (!current) void solve();
    }, SETTLE_MS);
    return () => clearTimeout(timer);
  }, [challengeUrl, loaded, solve]);

  useImperativeHandle(
    ref,
    () => ({
      async getToken() {
        const url = urlRef.current;
        if (payloadRef.current && solvedRef.current === url) return payloadRef.current;
        const widget = widgetRef.current;
        if (!widget || typeof widget.verify !== 'function') return null;
        if (ownRef.current?.url === url) {
          const payload = await ownRef.current.promise;
          if (payload) return payload;
        } else if (!ownRef.current && stateRef.current === 'verifying' && solvingRef.current === url) {
          const payload = await waitForOutcome(widget);
          if (payload && solvedRef.current === url) return payload;
        }
        return solve();
      },
      reset() {
        // A payload is single-use on the server: after any submit, solve a fresh challenge.
        void solve();
      },
    }),
    [solve],
  );

  if (loadFailed) {
    return (
      <p role="alert" className="text-sm text-destructive">
        The captcha could not be loaded. Reload the page to try again.
      </p>
    );
  }
  if (!loaded) return <CaptchaLoading />;
  return (
    <altcha-widget
      ref={attach}
      challenge={challengeUrl}
      auto="onload"
      style={{ '--altcha-max-width': '100%' }}
    />
  );
}

function waitForOutcome(widget: AltchaWidgetElement): Promise<string | null> {
  return new Promise((resolve) => {
    const done = (value: string | null) => {
      clearTimeout(timer);
      widget.removeEventListener('statechange', onState);
      resolve(value);
    };
    const onState = (event: Event) => {
      const { state, payload } = (event as CustomEvent<{ state: AltchaState; payload?: string | null }>)
        .detail;
      if (state === 'verified') done(payload ?? null);
      else if (state !== 'verifying') done(null);
    };
    const timer = setTimeout(() => done(null), OUTCOME_TIMEOUT_MS);
    widget.addEventListener('statechange', onState);
  });
}

interface Grecaptcha {
  ready: (callback: () => void) => void;
  execute: (siteKey: string, options: { action: string }) => Promise<string>;
}

let recaptchaScript: Promise<Grecaptcha> | null = null;

/** Loads Google's reCAPTCHA v3 script once (needs www.google.com and www.gstatic.com in the CSP). */
function loadRecaptcha(siteKey: string): Promise<Grecaptcha> {
  recaptchaScript ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = `https://www.google.com/recaptcha/api.js?render=${encodeURIComponent(siteKey)}`;
    script.async = true;
    script.onload = () => {
      const g = (window as unknown as { grecaptcha?: Grecaptcha }).grecaptcha;
      if (g) g.ready(() => resolve(g));
      else reject(new Error('reCAPTCHA did not load'));
    };
    script.onerror = () => {
      recaptchaScript = null;
      reject(new Error('reCAPTCHA did not load'));
    };
    document.head.appendChild(script);
  });
  return recaptchaScript;
}

/** Invisible reCAPTCHA v3: a token is requested when the form is submitted. */
function RecaptchaField({
  siteKey,
  action,
  ref,
}: {
  siteKey: string;
  action: string;
  ref?: Ref<CaptchaHandle>;
}) {
  useEffect(() => {
    loadRecaptcha(siteKey).catch(() => undefined);
  }, [siteKey]);

  useImperativeHandle(
    ref,
    () => ({
      async getToken() {
        try {
          const grecaptcha = await loadRecaptcha(siteKey);
          return await grecaptcha.execute(siteKey, { action });
        } catch {
          return null;
        }
      },
      reset() {
        // Every execute() call yields a fresh token; nothing to reset.
      },
    }),
    [siteKey, action],
  );
  return null;
}

function CaptchaLoading() {
  return (
    <div className="flex h-[58px] items-center gap-2 text-sm text-muted-foreground">
      <Spinner className="size-4" label="Loading captcha" />
      Loading captcha…
    </div>
  );
}
