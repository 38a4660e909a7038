import type { ReactNode } from 'react';
import { useMediaQuery } from '@/hooks/use-media-query';

/**
 * Wide enough for a list page's table (Tailwind's `lg`, 1024 px: the sidebar and a five- or
 * six-column table fit); a wider table asks for more (the studies table from 1280 px).
 */
export const TABLE_MIN_WIDTH = '(min-width: 1024px)';

/**
 * A list as a table where it fits and as stacked cards below, so a phone never scrolls sideways.
 * Only the one layout is rendered (not the other hidden with CSS), so every text is in the page
 * once, for assistive technology and for tests alike.
 */
export function ListLayout({
  table,
  cards,
  minWidth = TABLE_MIN_WIDTH,
}: {
  table: () => ReactNode;
  cards: () => ReactNode;
  /** The media query from which the table is shown. */
  minWidth?: string;
}) {
  const wide = useMediaQuery(minWidth);
  return <>{wide ? table() : cards()}</>;
}
