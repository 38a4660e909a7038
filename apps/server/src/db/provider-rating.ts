import { sql } from 'drizzle-orm';
import { providerRatings, providers } from './schema/index';

/**
 * A provider's earned rating, read with the row: the mean of its patients' stars to one decimal
 * (null without ratings) and how many gave it. The one definition the directory, the services
 * list and the ratings module use.
 */
export const providerRatingMean = sql<
  number | null
>`(select round(avg(${providerRatings.stars})::numeric, 1)::float8 from ${providerRatings} where ${providerRatings.providerId} = ${providers.id})`;
export const providerRatingCount = sql<number>`(select count(*)::int from ${providerRatings} where ${providerRatings.providerId} = ${providers.id})`;
