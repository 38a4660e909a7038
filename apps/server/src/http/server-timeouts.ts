/**
 * Timeouts of both HTTP servers (app and viewer origin), so slow or stalled clients cannot hold
 * connections for Node's defaults (60 s for headers, 300 s for a request).
 */
export const SERVER_TIMEOUTS = {
  /** A connection that sends nothing for this long (headers or body) is closed. */
  connectionTimeout: 30_000,
  /** The whole request, body included: the largest upload chunk on a slow line fits well within it. */
  requestTimeout: 600_000,
  /**
   * Not shorter than clients keep idle connections (Node's agents: 4-5 s), so the server does not
   * close one just as a client reuses it; the idle limit above ends them at 30 s.
   */
  keepAliveTimeout: 65_000,
  http: {
    /** Headers must arrive within this, however slowly they trickle in. */
    headersTimeout: 10_000,
    /** How often Node looks for requests past those limits. */
    connectionsCheckingInterval: 2_000,
  },
} as const;
