import { useState } from 'react';

/**
 * The page shown of a studies list (0 is the first), back to the first page whenever one of
 * `resetOn` changes: a new search, filter or sort shows its first rows. A page past the end (the
 * list got shorter) is shown as the last page by the list itself (studies-list.tsx).
 */
export function useListPage(resetOn: readonly unknown[]) {
  const [page, setPage] = useState(0);
  const [seen, setSeen] = useState(resetOn);
  if (seen.length !== resetOn.length || seen.some((value, i) => !Object.is(value, resetOn[i]))) {
    setSeen(resetOn);
    setPage(0);
  }
  return [page, setPage] as const;
}
