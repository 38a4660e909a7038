import { deidentifyInstance } from '../../dicom/deidentify/deidentify';
import { createUidMap, deidentifyKeys } from '../../dicom/deidentify/profile';
import type { Deidentifier } from './export-builder';

/**
 * The export's de-identifier: the PS3.15 engine of dicom/deidentify, one UID map per export (so
 * references between the export's instances, series and reports still resolve) and the owner's
 * date shift (`deidentifyKeys`, shared with de-identified copies, so both shift a patient's dates
 * alike). Encapsulated PDF reports stay out (their text names the patient).
 */
export function createPs315Deidentifier(secret: string): Deidentifier {
  const { key, dateShiftFor } = deidentifyKeys(secret);
  return async function* (files, copy) {
    const ctx = {
      dateShiftDays: dateShiftFor(copy.ownerId),
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
