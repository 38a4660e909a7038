import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a vendor webhook may go (docs/decisions.md, "External AI vendors"): only to public unicast
 * addresses. A URL is checked when an admin sets it (its name resolved), and every call checks the
 * addresses again as it connects, and connects to the very address it checked, so a name that
 * later resolves elsewhere (DNS rebinding) reaches nothing inside. Redirects are never followed.
 */

/** Resolves a host name to all its addresses (dns.lookup by default; tests pass their own). */
export type ResolveHost = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const resolveHost: ResolveHost = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** How long the check of a URL being set waits for DNS. */
const SET_TIME_LOOKUP_MS = 5_000;

const RANGE_NAMES: Record<string, string> = {
  loopback: 'this machine (loopback)',
  private: 'a private network',
  uniqueLocal: 'a private network (unique local)',
  linkLocal: 'a link-local address (cloud metadata lives there)',
  carrierGradeNat: 'a carrier-grade NAT network',
  unspecified: 'an unspecified address',
};

/**
 * Why a webhook may not be sent to this IP address, or null. Only public unicast addresses are
 * allowed (ipaddr.js classifies them); loopback too when `allowLoopback` (VENDOR_ALLOW_LOOPBACK, or
 * outside production). IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
 */
export function addressProblem(address: string, allowLoopback: boolean): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
  } catch {
    return 'The webhook address is not a valid IP address.';
  }
  if (ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress()) ip = ip.toIPv4Address();
  const range = ip.range();
  if (range === 'unicast' || (range === 'loopback' && allowLoopback)) return null;
  return `The webhook URL points at ${RANGE_NAMES[range] ?? `a reserved address (${range})`}, which is not allowed.`;
}

/** The IP address a URL's host names literally, if it is one. */
function literalAddress(hostname: string): string | null {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(bare) ? bare : null;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a webhook URL is refused on its face, or null: https only, or plain http to this machine
 * (127.0.0.1, localhost, [::1]) where `allowLoopback`; no user name or password, no fragment.
 */
export function webhookUrlProblem(value: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'The webhook URL is not a valid URL.';
  }
  if (url.username || url.password) return 'The webhook URL must not contain a user name or password.';
  if (url.hash) return 'The webhook URL must not contain a fragment (#).';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_NAMES.has(url.hostname)) {
    return allowLoopback ? null : 'The webhook URL must start with https:// in production.';
  }
  return 'The webhook URL must start with https://.';
}

/**
 * Why a webhook URL is refused, or null: its form (above), then where it leads. An IP address is
 * judged as it is; a name is resolved and every address it has must be allowed. A name that does
 * not resolve now is accepted: nothing can be sent to it until it does, and each call checks again.
 */
export async function webhookTargetProblem(
  value: string,
  opts: { allowLoopback: boolean; resolve: ResolveHost },
): Promise<string | null> {
  const problem = webhookUrlProblem(value, opts.allowLoopback);
  if (problem) return problem;
  const { hostname } = new URL(value);
  const literal = literalAddress(hostname);
  if (literal) return addressProblem(literal, opts.allowLoopback);
  let addresses: Array<{ address: string }>;
  try {
    addresses = await Promise.race([
      opts.resolve(hostname),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('lookup timed out')), SET_TIME_LOOKUP_MS).unref(),
      ),
    ]);
  } catch {
    return null;
  }
  for (const { address } of addresses) {
    const refused = addressProblem(address, opts.allowLoopback);
    if (refused) return refused.replace('The webhook URL points at', `${hostname} resolves to`);
  }
  return null;
}

/** A webhook call that was not made because of where it would have gone. */
export class WebhookTargetError extends Error {
  override readonly name = 'WebhookTargetError';
}

/**
 * POSTs to webhook URLs: connects only to allowed addresses, checked as each connection is made
 * (the lookup below is the connection's own, so the address checked is the address used), follows
 * no redirect (the status is the answer), and gives up after `timeoutMs`. Resolves with the status.
 */
export function createWebhookSender(opts: {
  allowLoopback: boolean;
  resolve: ResolveHost;
  timeoutMs: number;
}) {
  const checkedLookup: LookupFunction = (hostname, options, callback) => {
    opts.resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0)
          return callback(Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' }), '', 4);
        for (const { address } of addresses) {
          const refused = addressProblem(address, opts.allowLoopback);
          if (refused)
            return callback(new WebhookTargetError(`${hostname} resolves to ${address}: ${refused}`), '', 4);
        }
        const usable = addresses.filter((a) => !options.family || a.family === options.family);
        if (usable.length === 0)
          return callback(
            Object.assign(new Error(`${hostname} has no address of that family`), { code: 'ENOTFOUND' }),
            '',
            4,
          );
        if (options.all) return callback(null, usable);
        return callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 4),
    );
  };

  return function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
    const target = new URL(url);
    const literal = literalAddress(target.hostname);
    const refused = literal ? addressProblem(literal, opts.allowLoopback) : null;
    if (refused) return Promise.reject(new WebhookTargetError(refused));
    return new Promise((resolve, reject) => {
      const request = (target.protocol === 'https:' ? https : http).request(
        target,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          // A connection of its own, never a pooled one opened to an address checked earlier.
          agent: false,
          lookup: checkedLookup,
          signal: AbortSignal.timeout(opts.timeoutMs),
        },
        (res) => {
          // The answer's body is not read: only its status counts.
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  };
}
export type WebhookSender = ReturnType<typeof createWebhookSender>;
