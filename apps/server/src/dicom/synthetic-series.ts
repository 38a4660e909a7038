import dcmjs from 'dcmjs';

const { DicomMetaDictionary, DicomDict } = dcmjs.data;

export interface GeneratedSeries {
  studyInstanceUid: string;
  seriesInstanceUid: string;
  files: Array<{ sopInstanceUid: string; bytes: Buffer }>;
  rows: number;
  columns: number;
}

/**
 * Where slice `index` of `count` carries its bright square (in pixels): it moves from the top-left
 * towards the bottom-right, so every slice differs and the shape's place is known.
 */
export function squareOf(index: number, count: number, size: number) {
  const side = Math.round(size * 0.3);
  const travel = size - side - Math.round(size * 0.1) * 2;
  const offset = Math.round(size * 0.1) + Math.round((travel * index) / Math.max(1, count - 1));
  return { x: offset, y: offset, side };
}

/**
 * A CT-like series written with dcmjs: 16-bit slices, background 0, a square of value 1000 per
 * slice (see squareOf), explicit VR little endian, with a window that shows both. Used by the
 * tests and benchmarks, and for the sample studies of `npm run demo` (src/modules/demo/demo.service.ts).
 */
export function generateSeries(opts: {
  count: number;
  size?: number;
  patientName?: string;
  patientId?: string;
  description?: string;
  seriesDescription?: string;
  studyInstanceUid?: string;
  seriesNumber?: number;
}): GeneratedSeries {
  const size = opts.size ?? 128;
  const studyInstanceUid = opts.studyInstanceUid ?? DicomMetaDictionary.uid();
  const seriesInstanceUid = DicomMetaDictionary.uid();
  const frameOfReferenceUid = DicomMetaDictionary.uid();
  const files: GeneratedSeries['files'] = [];
  for (let i = 0; i < opts.count; i++) {
    const sopInstanceUid = DicomMetaDictionary.uid();
    const pixels = new Uint16Array(size * size);
    const sq = squareOf(i, opts.count, size);
    for (let y = sq.y; y < sq.y + sq.side; y++)
      for (let x = sq.x; x < sq.x + sq.side; x++) pixels[y * size + x] = 1000;
    const dataset = {
      SpecificCharacterSet: 'ISO_IR 192',
      SOPClassUID: '1.2.840.10008.5.1.4.1.1.2',
      SOPInstanceUID: sopInstanceUid,
      StudyDate: '20240115',
      StudyTime: '101500',
      Modality: 'CT',
      StudyDescription: opts.description ?? 'Generated phantom',
      SeriesDescription: opts.seriesDescription ?? 'Moving square',
      PatientName: opts.patientName ?? 'Phantom^Square',
      PatientID: opts.patientId ?? 'PH-1',
      PatientBirthDate: '19800101',
      PatientSex: 'O',
      StudyInstanceUID: studyInstanceUid,
      SeriesInstanceUID: seriesInstanceUid,
      StudyID: '1',
      SeriesNumber: opts.seriesNumber ?? 1,
      InstanceNumber: i + 1,
      ImagePositionPatient: [0, 0, i * 2],
      ImageOrientationPatient: [1, 0, 0, 0, 1, 0],
      FrameOfReferenceUID: frameOfReferenceUid,
      SliceThickness: 2,
      PixelSpacing: [1, 1],
      SamplesPerPixel: 1,
      PhotometricInterpretation: 'MONOCHROME2',
      Rows: size,
      Columns: size,
      BitsAllocated: 16,
      BitsStored: 16,
      HighBit: 15,
      PixelRepresentation: 0,
      RescaleIntercept: 0,
      RescaleSlope: 1,
      WindowCenter: 500,
      WindowWidth: 1000,
      PixelData: pixels.buffer,
      _vrMap: { PixelData: 'OW' },
    };
    const meta = {
      FileMetaInformationVersion: new Uint8Array([0, 1]).buffer,
      MediaStorageSOPClassUID: dataset.SOPClassUID,
      MediaStorageSOPInstanceUID: sopInstanceUid,
      TransferSyntaxUID: '1.2.840.10008.1.2.1',
      ImplementationClassUID: '1.2.826.0.1.3680043.10.1234',
    };
    const dict = new DicomDict(DicomMetaDictionary.denaturalizeDataset(meta));
    dict.dict = DicomMetaDictionary.denaturalizeDataset(dataset);
    files.push({ sopInstanceUid, bytes: Buffer.from(dict.write()) });
  }
  return { studyInstanceUid, seriesInstanceUid, files, rows: size, columns: size };
}
