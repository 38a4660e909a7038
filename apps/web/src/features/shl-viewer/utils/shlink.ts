import { LINK_LABEL_MAX } from '@mi/contracts/links';

/** The payload of a SMART Health Link (`shlink:/` + base64url JSON), as the IG defines it. */
export interface ShlPayload {
  /** The manifest URL (share) or the file URL (flag U). */
  url: string;
  /** 32-byte key, base64url (43 characters). */
  key: string;
  /** Expiry, in seconds since the epoch. */
  exp?: number;
  /** Letters: L (long-term), P (passcode), U (single file by GET). */
  flag: string;
  label?: string;
  v?: number;
}

function decodeBase64url(text: string): string {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/**
 * Reads the link from the page's fragment (`#shlink:/…`, or a viewer URL's whole fragment) — the
 * fragment never leaves the browser. Null when there is none or it does not hold a usable link.
 */
export function parseShlink(fragment: string): ShlPayload | null {
  const at = fragment.indexOf('shlink:/');
  if (at === -1) return null;
  const encoded = fragment.slice(at + 'shlink:/'.length).trim();
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return null;
  let json: unknown;
  try {
    json = JSON.parse(decodeBase64url(encoded));
  } catch {
    return null;
  }
  if (!json || typeof json !== 'object') return null;
  const p = json as Record<string, unknown>;
  if (typeof p.url !== 'string' || typeof p.key !== 'string') return null;
  let url: URL;
  try {
    url = new URL(p.url);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (!/^[A-Za-z0-9_-]{43}$/.test(p.key)) return null;
  const flag = typeof p.flag === 'string' && /^[LPU]*$/.test(p.flag) ? p.flag : '';
  return {
    url: p.url,
    key: p.key,
    exp: typeof p.exp === 'number' && Number.isFinite(p.exp) ? p.exp : undefined,
    flag,
    label: typeof p.label === 'string' ? p.label.slice(0, LINK_LABEL_MAX) : undefined,
    v: typeof p.v === 'number' ? p.v : undefined,
  };
}

/** Whether a link's own expiry has passed (the server has the last word). */
export function isExpired(payload: ShlPayload, now = Date.now()): boolean {
  return payload.exp !== undefined && payload.exp * 1000 <= now;
}
