import type {
  MyOffer,
  OfferSettings,
  ProfessionalProfile,
  ProfessionalProfileInput,
} from '@mi/contracts/directory';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, isApiError } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/**
 * A verified professional's workspace: their directory profile and their offers. Anyone else
 * (a patient, a professional an admin has not verified) gets 404 from every route here.
 */

/** GET /api/professional/profile: made from the registration on the first visit; null on 404. */
export async function getProfessionalProfile(signal?: AbortSignal): Promise<ProfessionalProfile | null> {
  try {
    return await api.get<ProfessionalProfile>('/api/professional/profile', { signal });
  } catch (err) {
    if (isApiError(err, 'NOT_FOUND')) return null;
    throw err;
  }
}

export function useProfessionalProfile() {
  return useQuery({
    queryKey: queryKeys.professionalProfile,
    queryFn: ({ signal }) => getProfessionalProfile(signal),
    refetchOnMount: 'always',
  });
}

/** What a change of the profile or of an offer changes elsewhere: the directory and the catalogue. */
function refreshDirectory(queryClient: QueryClient) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: queryKeys.providers }),
    queryClient.invalidateQueries({ queryKey: queryKeys.services }),
  ]);
}

function useProfileMutation<T>(fn: (vars: T) => Promise<ProfessionalProfile>, offersToo = false) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (profile) => queryClient.setQueryData(queryKeys.professionalProfile, profile),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.professionalProfile }),
        offersToo && queryClient.invalidateQueries({ queryKey: queryKeys.professionalOffers }),
        refreshDirectory(queryClient),
      ]),
  });
}

/** PUT /api/professional/profile: description, experience, credentials, hours, location, contact. */
export const useSaveProfile = () =>
  useProfileMutation((input: ProfessionalProfileInput) =>
    api.put<ProfessionalProfile>('/api/professional/profile', input),
  );

/** POST /api/professional/profile/publish: list the profile (a complete one) or take it off. */
export const usePublishProfile = () =>
  useProfileMutation((published: boolean) =>
    api.post<ProfessionalProfile>('/api/professional/profile/publish', { published }),
  );

/** POST /api/professional/offers/pause: pausing stops every offer and refunds orders waiting for acceptance. */
export const usePauseOffers = () =>
  useProfileMutation(
    (paused: boolean) => api.post<ProfessionalProfile>('/api/professional/offers/pause', { paused }),
    true,
  );

/** GET /api/professional/offers: every service a professional may offer, with their offer of it or null. */
export function useMyOffers() {
  return useQuery({
    queryKey: queryKeys.professionalOffers,
    queryFn: ({ signal }) => api.get<MyOffer[]>('/api/professional/offers', { signal }),
    refetchOnMount: 'always',
  });
}

const offerPath = (serviceId: string) => `/api/professional/offers/${encodeURIComponent(serviceId)}`;

function useOfferMutation<T>(fn: (vars: T) => Promise<MyOffer>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (saved) =>
      queryClient.setQueryData<MyOffer[]>(queryKeys.professionalOffers, (list) =>
        list?.map((o) => (o.serviceId === saved.serviceId ? saved : o)),
      ),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.professionalOffers }),
        refreshDirectory(queryClient),
      ]),
  });
}

/** PUT /api/professional/offers/{serviceId}: offer a service, or change the offer's terms. */
export const useSaveOffer = () =>
  useOfferMutation(({ serviceId, settings }: { serviceId: string; settings: OfferSettings }) =>
    api.put<MyOffer>(offerPath(serviceId), settings),
  );

/** DELETE /api/professional/offers/{serviceId}: stop offering it (paid orders go on). */
export const useWithdrawOffer = () =>
  useOfferMutation((serviceId: string) => api.delete<MyOffer>(offerPath(serviceId)));
