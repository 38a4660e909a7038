/** Counts requests per key in fixed windows, shared by every API process (the database; modules/rate-limit). */
export interface SharedRequestCounter {
  hit(key: string, windowMs: number): Promise<{ hits: number; msLeft: number }>;
}

type Callback = (err: Error | null, res?: { current: number; ttl: number }) => void;

/**
 * A store for @fastify/rate-limit over shared counters: a route's per-address limit counts the
 * requests that every API process received, not only this one's (behind a round-robin proxy, each
 * process alone would see a fraction of them). Each route counts apart, as with the plugin's own
 * in-memory store.
 */
export function sharedRateLimitStore(counter: SharedRequestCounter) {
  return class SharedRateLimitStore {
    // @fastify/rate-limit passes its options to the first one; routes' stores come from child().
    constructor(
      _options?: unknown,
      private readonly scope = '',
    ) {}

    incr(key: string, callback: Callback, timeWindow: number): void {
      counter.hit(`${this.scope}${key}`, timeWindow).then(
        ({ hits, msLeft }) => callback(null, { current: hits, ttl: msLeft }),
        (err: Error) => callback(err),
      );
    }

    // Typed as the route's options; what arrives is the route's limit settings with `routeInfo`.
    child(routeOptions: object) {
      const route = (routeOptions as { routeInfo?: { method?: string | string[]; url?: string } }).routeInfo;
      const method = [route?.method ?? ''].flat().join(',');
      return new SharedRateLimitStore(undefined, `${method} ${route?.url ?? ''} `);
    }
  };
}
