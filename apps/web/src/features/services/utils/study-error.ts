import { errorMessage, isApiError } from '@/lib/api-client';

/**
 * Why the Analysis services page cannot show its study: a study that is missing (or not the user's,
 * which the server answers the same way, or a malformed id) is not found; anything else, a network
 * error say, is an error loading it, with its message.
 */
export function studyErrorText(error: unknown): string {
  if (isApiError(error, 'NOT_FOUND', 'VALIDATION_ERROR', 'BAD_REQUEST'))
    return 'Study not found or invalid study ID.';
  const fallback = error instanceof Error ? error.message : 'An error occurred';
  return `Error loading study: ${errorMessage(error, fallback)}`;
}
