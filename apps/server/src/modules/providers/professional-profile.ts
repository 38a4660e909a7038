import type { ProfessionalProfile, ProfessionalProfileInput } from '@mi/contracts/directory';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';

import {
  missingForPublishing,
  orNull,
  type ProvidersDeps,
  type ProviderTools,
  toProfessionalProfile,
} from './providers-context';

/** A verified professional's own directory profile. */
export function createProfessionalProfiles(deps: ProvidersDeps, tools: ProviderTools) {
  return {
    professional: {
      /**
       * The signed-in professional's profile, made from their registration on first visit. Only an
       * account an admin verified has one; anyone else gets the one 404.
       */
      async get(userId: string): Promise<ProfessionalProfile> {
        return toProfessionalProfile(await tools.requireProfile(userId));
      },

      /** The provider id of a verified professional's profile (their offers hang on it). */
      async providerId(userId: string): Promise<string> {
        return (await tools.requireProfile(userId)).provider.id;
      },

      async update(
        user: { id: string; role: string | null },
        input: ProfessionalProfileInput,
        meta: RequestMeta,
      ): Promise<ProfessionalProfile> {
        const found = await tools.requireProfile(user.id);
        await deps.repo.updateDirectoryEntry(found.provider.id, {
          description: orNull(input.description),
          yearsOfExperience: String(Number(input.yearsOfExperience)),
          credentials: [...new Set(input.credentials.map((c) => c.trim()).filter(Boolean))],
          workingHours: input.workingHours,
          location: input.location,
          email: input.contact.email.trim(),
          mobile: orNull(input.contact.mobile),
          website: orNull(input.contact.website),
          updatedAt: deps.now(),
        });
        await tools.audit(user, 'provider.profile_update', found.provider.id, meta);
        return toProfessionalProfile(await tools.requireProfile(user.id));
      },

      /** Lists or unlists the profile; listing needs a complete profile. */
      async publish(
        user: { id: string; role: string | null },
        published: boolean,
        meta: RequestMeta,
      ): Promise<ProfessionalProfile> {
        const found = await tools.requireProfile(user.id);
        const missing = missingForPublishing(found.provider);
        if (published && missing.length > 0) {
          await tools.audit(user, 'provider.publish', found.provider.id, meta, { missing }, 'failure');
          throw new AppError('UNPROCESSABLE', `Before publishing, add ${missing.join(', ')}.`);
        }
        if (published !== (found.provider.publishedAt !== null)) {
          await deps.repo.updateDirectoryEntry(found.provider.id, {
            publishedAt: published ? deps.now() : null,
            updatedAt: deps.now(),
          });
          await tools.audit(
            user,
            published ? 'provider.publish' : 'provider.unpublish',
            found.provider.id,
            meta,
          );
        }
        return toProfessionalProfile(await tools.requireProfile(user.id));
      },

      /** Pauses every offer (none is sold; paid orders waiting for this professional are refunded) or resumes them. */
      async pauseOffers(
        user: { id: string; role: string | null },
        paused: boolean,
        meta: RequestMeta,
      ): Promise<ProfessionalProfile> {
        const found = await tools.requireProfile(user.id);
        if (paused !== Boolean(found.licence?.offersPausedAt)) {
          await deps.repo.setOffersPaused(user.id, paused ? deps.now() : null);
          await tools.audit(
            user,
            paused ? 'provider.offers_pause' : 'provider.offers_resume',
            found.provider.id,
            meta,
          );
          if (paused) await deps.onFulfillerLost?.();
        }
        return toProfessionalProfile(await tools.requireProfile(user.id));
      },
    },
  };
}
