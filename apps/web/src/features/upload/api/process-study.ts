import type { ProcessStudyBody, processStudyResponseSchema } from '@mi/contracts/studies';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

export type ProcessStudyResponse = z.infer<typeof processStudyResponseSchema>;

/** POST /api/studies/process: queues the processing of an uploaded archive. */
export function processStudy(body: ProcessStudyBody): Promise<ProcessStudyResponse> {
  return api.post<ProcessStudyResponse>('/api/studies/process', body);
}

/** After queueing, the current user (storage use) is read again. */
export function useProcessStudy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: processStudy,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.me }),
  });
}
