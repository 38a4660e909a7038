import type { PublicConfig } from '@mi/contracts/auth';
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
    const url = email
      ? `${captcha.challengeUrl}?${new URLSearchParams({ email }).toString()}`
      : captcha.challengeUrl;
    return <AltchaField challengeUrl={url} ref={ref} />;
  }
  return <RecaptchaField siteKey={captcha.siteKey} action={action} ref={ref} />;
}

type AltchaState = 'unverified' | 'verifying' | 'verified' | 'expired' | 'error' | 'code';
const OUTCOME_TIMEOUT_MS = 60_000;

/** ALTCHA proof of work: solved in the background as soon as the form shows (auto="onload"). */
function AltchaField({ challengeUrl, ref }: { challengeUrl: string; ref?: Ref<CaptchaHandle> }) {
  const [loaded, setLoaded] = useState(false);
  const [loadFailed, setLoadFailed] = useState(false);
  const widgetRef = useRef<AltchaWidgetElement | null>(null);
  const payloadRef = useRef<string | null>(null);
  const stateRef = useRef<AltchaState>('unverified');

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

  const attach = useCallback((el: AltchaWidgetElement | null) => {
    widgetRef.current = el;
    if (!el) return;
    const onState = (event: Event) => {
      const detail = (event as CustomEvent<{ state: AltchaState; payload?: string | null }>).detail;
      stateRef.current = detail.state;
      payloadRef.current = detail.state === 'verified' ? (detail.payload ?? null) : null;
    };
    el.addEventListener('statechange', onState);
    return () => el.removeEventListener('statechange', onState);
  }, []);

  useImperativeHandle(
    ref,
    () => ({
      async getToken() {
        if (payloadRef.current) return payloadRef.current;
        const widget = widgetRef.current;
        if (!widget || typeof widget.verify !== 'function') return null;
        if (stateRef.current === 'verifying') return waitForOutcome(widget);
        const result = await widget.verify().catch(() => null);
        return result?.payload ?? payloadRef.current;
      },
      reset() {
        // A payload is single-use on the server: after any submit, solve a fresh challenge.
        payloadRef.current = null;
        const widget = widgetRef.current;
        if (widget && typeof widget.reset === 'function') {
          widget.reset();
          void widget.verify().catch(() => null);
        }
      },
    }),
    [],
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
