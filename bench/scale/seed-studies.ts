import type pg from 'pg';

/**
 * Bulk-inserts `count` studies owned by `ownerId` into the real tables (the migrated schema, its
 * indexes, constraints and triggers), each with one series of 3 instances, 1,000 per statement,
 * then `vacuum analyze`. Study g (0-based) is 'Patient^Number<g>', described 'CT chest with
 * contrast <g>', dated 2010-01-01 + (g mod 5000) days, of modality CT, MR or CR/SR in turn, and
 * uploaded g minutes before now (so study 0 is the newest). Returns the seconds it took.
 */
export async function seedStudies(sql: pg.Client, ownerId: string, count: number): Promise<number> {
  const t0 = Date.now();
  for (let from = 0; from < count; from += 1000) {
    await sql.query(
      `with s as (
         insert into studies (owner_id, study_instance_uid, patient_name, patient_id, study_date, study_description,
                              institution_name, modalities, series_count, instance_count, size_bytes, created_at, updated_at)
         select $1::uuid, '2.25.' || (1000000 + g), 'Patient^Number' || g, 'PID' || g,
                date '2010-01-01' + (g % 5000), 'CT chest with contrast ' || g, 'General Hospital',
                case g % 3 when 0 then '{CT}'::text[] when 1 then '{MR}'::text[] else '{CR,SR}'::text[] end,
                1, 3, 3 * 525000, now() - g * interval '1 minute', now()
         from generate_series($2::int, $3::int) g
         returning id, study_instance_uid),
       se as (
         insert into series (study_id, series_instance_uid, modality, series_number, instance_count)
         select id, study_instance_uid || '.1', 'CT', 1, 3 from s
         returning id, study_id, series_instance_uid)
       insert into instances (study_id, series_id, sop_instance_uid, sop_class_uid, instance_number, transfer_syntax_uid,
                              size_bytes, crc32, storage_key, storage_offset)
       select se.study_id, se.id, se.series_instance_uid || '.' || i, '1.2.840.10008.5.1.4.1.1.2', i,
              '1.2.840.10008.1.2.1', 525000, (hashtext(se.series_instance_uid || i)::bigint & 4294967295),
              'dicom/' || se.study_id || '/' || i || '.dcm', 0
       from se, generate_series(1, 3) i`,
      [ownerId, from, Math.min(count, from + 1000) - 1],
    );
  }
  await sql.query('vacuum analyze studies, series, instances');
  return (Date.now() - t0) / 1000;
}
