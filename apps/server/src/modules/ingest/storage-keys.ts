import { createHash } from 'node:crypto';

/** Storage key of one instance: unique per upload, and the same on every retry of that upload. */
export function instanceKey(uploadId: string, sopInstanceUid: string): string {
  const sop =
    /^[0-9]+(\.[0-9]+)*$/.test(sopInstanceUid) && sopInstanceUid.length <= 64
      ? sopInstanceUid
      : createHash('sha256').update(sopInstanceUid).digest('hex').slice(0, 40);
  return `dicom/${uploadId}/${sop}.dcm`;
}

/** Storage key of an uploaded archive kept whole: the same on every retry of that upload. */
export function archiveKey(uploadId: string): string {
  return `dicom/${uploadId}/archive.zip`;
}
