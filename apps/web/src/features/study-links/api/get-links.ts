import type { LinkList } from '@mi/contracts/links';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/studies/links (optionally ?studyId=): the user's links, or those carrying one study. */
export function getLinks(studyId: string | undefined, signal?: AbortSignal): Promise<LinkList> {
  return api.get<LinkList>('/api/studies/links', { params: { studyId }, signal });
}

/** Every link of the user (the Links page), read each time the page opens. */
export function useLinks() {
  return useQuery({
    queryKey: queryKeys.studyLinks.all,
    queryFn: ({ signal }) => getLinks(undefined, signal),
    select: (res) => res.links,
    refetchOnMount: 'always',
  });
}

/** The links that carry one study (its Access & activity), read each time the dialog opens. */
export function useStudyLinks(studyId: string | null) {
  return useQuery({
    queryKey: queryKeys.studyLinks.byStudy(studyId ?? ''),
    queryFn: ({ signal }) => getLinks(studyId!, signal),
    select: (res) => res.links,
    enabled: studyId !== null,
    refetchOnMount: 'always',
  });
}
