import { useCallback, useSyncExternalStore } from 'react';

/** Whether a CSS media query matches, kept up to date as the window is resized or turned. */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    [query],
  );
  return useSyncExternalStore(subscribe, () => window.matchMedia(query).matches);
}

/**
 * Wide enough for the list pages' tables (Tailwind's `lg`, 1024 px: the sidebar and a five- or
 * six-column table fit). Narrower screens get the same rows as stacked cards, so a phone never
 * scrolls sideways. Rendering one layout rather than hiding the other with CSS keeps every text
 * once in the page, for assistive technology and for tests alike.
 */
export function useWideLayout(): boolean {
  return useMediaQuery('(min-width: 1024px)');
}
