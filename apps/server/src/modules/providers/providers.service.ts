import { createProfessionalProfiles } from './professional-profile';
import { createProviderNetwork } from './provider-network';
import { createProvidersAdmin } from './providers-admin';
import { createProviderTools, type ProvidersDeps } from './providers-context';

export {
  AUTOMATED_PROVIDER,
  NETWORK_ADDS_LIMITED_MESSAGE,
  NETWORK_ADDS_PER_MINUTE,
  PROFESSIONAL_ONLY,
  PROFILE_NOT_FOUND,
  PROVIDER_NOT_FOUND,
  type ProvidersDeps,
  toProvider,
} from './providers-context';

/**
 * The provider directory (/providers, Admin → Providers) and each user's trusted network. A user
 * sees the live directory and the contacts they made themselves (by sharing with a new email);
 * anything else, including a retired entry, is the one 404.
 */
export function createProvidersService(deps: ProvidersDeps) {
  const tools = createProviderTools(deps);
  return {
    ...createProviderNetwork(deps, tools),
    ...createProfessionalProfiles(deps, tools),
    ...createProvidersAdmin(deps, tools),
  };
}
export type ProvidersService = ReturnType<typeof createProvidersService>;
