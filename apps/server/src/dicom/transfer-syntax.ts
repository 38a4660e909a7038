/** Transfer syntaxes the server names (PS3.5 §10 and Annex A). */
export const TS = {
  implicitLE: '1.2.840.10008.1.2',
  explicitLE: '1.2.840.10008.1.2.1',
  deflatedLE: '1.2.840.10008.1.2.1.99',
  explicitBE: '1.2.840.10008.1.2.2',
} as const;

/** Implicit VR Little Endian: the default of files without a file meta header. */
export const IMPLICIT_LITTLE_ENDIAN = TS.implicitLE;

const NATIVE = new Set<string>([TS.implicitLE, TS.explicitLE, TS.deflatedLE, TS.explicitBE]);

/** Uncompressed pixel data (whatever the byte order or the deflated data set around it). */
export const isNativeSyntax = (ts: string) => NATIVE.has(ts);

/** The transfer syntax of an instance as stored, or the default when the index holds none. */
export const storedTransferSyntax = (ts: string | null | undefined) => ts ?? TS.implicitLE;

/** The transfer syntax a frame is delivered in: the stored one, except that native data is always explicit little endian. */
export function frameTransferSyntax(stored: string): string {
  return isNativeSyntax(stored) ? TS.explicitLE : stored;
}

/** Media type of a single frame in a given transfer syntax (PS3.18 Table 8.7.3-2). */
export function frameMediaType(ts: string): string {
  if (isNativeSyntax(ts)) return 'application/octet-stream';
  if (
    [
      '1.2.840.10008.1.2.4.50',
      '1.2.840.10008.1.2.4.51',
      '1.2.840.10008.1.2.4.57',
      '1.2.840.10008.1.2.4.70',
    ].includes(ts)
  )
    return 'image/jpeg';
  if (['1.2.840.10008.1.2.4.80', '1.2.840.10008.1.2.4.81'].includes(ts)) return 'image/jls';
  if (['1.2.840.10008.1.2.4.90', '1.2.840.10008.1.2.4.91'].includes(ts)) return 'image/jp2';
  if (['1.2.840.10008.1.2.4.201', '1.2.840.10008.1.2.4.202', '1.2.840.10008.1.2.4.203'].includes(ts))
    return 'image/jphc';
  if (ts === '1.2.840.10008.1.2.5') return 'image/dicom-rle';
  if (
    [
      '1.2.840.10008.1.2.4.100',
      '1.2.840.10008.1.2.4.101',
      '1.2.840.10008.1.2.4.102',
      '1.2.840.10008.1.2.4.103',
    ].includes(ts)
  )
    return 'video/mpeg';
  if (['1.2.840.10008.1.2.4.104', '1.2.840.10008.1.2.4.105', '1.2.840.10008.1.2.4.106'].includes(ts))
    return 'video/mp4';
  return 'application/octet-stream';
}
