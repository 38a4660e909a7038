import { asc, sql, type SQL } from 'drizzle-orm';
import { instances, series } from './schema/index';

/**
 * The order a study's instances are read in (download folders, the thumbnail's series and slice):
 * series by number then UID, instances by number then SOP Instance UID; missing numbers last. For
 * queries that join `instances` with `series`.
 */
export function instanceReadingOrder(): SQL[] {
  return [
    sql`${series.seriesNumber} asc nulls last`,
    asc(series.seriesInstanceUid),
    sql`${instances.instanceNumber} asc nulls last`,
    asc(instances.sopInstanceUid),
  ];
}
