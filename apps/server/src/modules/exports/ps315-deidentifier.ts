import { createHmac } from 'node:crypto';
import { deidentifyInstance } from '../../dicom/deidentify/deidentify';
import { createUidMap, dateShiftDays } from '../../dicom/deidentify/profile';
import type { Deidentifier } from './export-builder';

/**
 * The export's de-identifier: the PS3.15 engine of dicom/deidentify, one UID map per export (so
 * references between the export's instances, series and reports still resolve) and the owner's
 * date shift. The shift's key is derived from the server secret exactly as
 * modules/deidentify/deidentify.service.ts derives it, so an export and a de-identified copy of the
 * same patient shift dates alike; change them together. Encapsulated PDF reports stay out (their
 * text names the patient).
 */
export function createPs315Deidentifier(secret: string): Deidentifier {
  const key = (label: string) => createHmac('sha256', secret).update(`deidentify:${label}`).digest('hex');
  return async function* (files, copy) {
    const ctx = {
      dateShiftDays: dateShiftDays(key('date-shift'), copy.ownerId),
      uids: createUidMap(key(`export:${copy.exportId}`)),
      includePdfReports: false,
    };
    for await (const f of files) {
      let result;
      try {
        result = deidentifyInstance(f.bytes, {
          ...ctx,
          ...(f.transferSyntaxUid ? { transferSyntaxUid: f.transferSyntaxUid } : {}),
        });
      } catch {
        // A file the engine cannot handle is left out rather than shipped with its identifiers.
        yield { leftOut: 'could not be de-identified' };
        continue;
      }
      yield result.kind === 'deidentified' ? { bytes: result.bytes } : { leftOut: result.reason };
    }
  };
}
