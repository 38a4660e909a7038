/**
 * Help articles change rarely and are the same for everyone: unlike the rest of the app (data never
 * stale), the help centre's answers are reused for 2 minutes and then read again.
 */
export const HELP_CACHE = { staleTime: 2 * 60_000, gcTime: 2 * 60_000 } as const;
