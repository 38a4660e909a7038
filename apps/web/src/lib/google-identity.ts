/** Google Identity Services, as much of it as the app uses (the sign-in button and its ID token). */
export interface GoogleIdentity {
  accounts: {
    id: {
      initialize(options: {
        client_id: string;
        callback: (response: { credential?: string }) => void;
        ux_mode?: 'popup';
      }): void;
      renderButton(parent: HTMLElement, options: Record<string, unknown>): void;
    };
  };
}

let gsiScript: Promise<GoogleIdentity> | null = null;

/**
 * Loads Google Identity Services once (the CSP allows accounts.google.com when a client id is set):
 * the login page's Google button and the confirmation of a Google account in Settings.
 */
export function loadGoogleIdentity(): Promise<GoogleIdentity> {
  gsiScript ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = 'https://accounts.google.com/gsi/client';
    script.async = true;
    script.onload = () => {
      const google = (window as unknown as { google?: GoogleIdentity }).google;
      if (google?.accounts?.id) resolve(google);
      else reject(new Error('Google Identity Services did not load'));
    };
    script.onerror = () => {
      gsiScript = null;
      reject(new Error('Google Identity Services did not load'));
    };
    document.head.appendChild(script);
  });
  return gsiScript;
}
