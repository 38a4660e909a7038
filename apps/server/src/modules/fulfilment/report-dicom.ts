import { randomUUID } from 'node:crypto';
import dcmjs from 'dcmjs';

const { DicomDict, DicomMetaDictionary } = dcmjs.data;

export const ENCAPSULATED_PDF_SOP_CLASS = '1.2.840.10008.5.1.4.1.1.104.1';
const EXPLICIT_VR_LITTLE_ENDIAN = '1.2.840.10008.1.2.1';
/** Our implementation's UID (a UUID-derived UID, like every UID we make). */
const IMPLEMENTATION_CLASS_UID = '2.25.255846470512118045128410669658826532107';

/** A new UID under the 2.25 root: the decimal value of a random UUID (ISO/IEC 9834-8). */
export function newUid(): string {
  return `2.25.${BigInt(`0x${randomUUID().replace(/-/g, '')}`).toString(10)}`;
}

/** The study's patient and study attributes, as the studies index holds them. */
export interface ReportStudyAttributes {
  studyInstanceUid: string;
  patientName: string | null;
  patientId: string | null;
  /** YYYY-MM-DD */
  patientBirthDate: string | null;
  patientSex: string | null;
  patientAge: string | null;
  /** YYYY-MM-DD */
  studyDate: string | null;
  studyTime: string | null;
  studyDescription: string | null;
  accessionNumber: string | null;
}

const da = (isoDate: string | null) => (isoDate ? isoDate.replace(/-/g, '') : '');
const dicomTime = (d: Date) => d.toISOString().slice(11, 19).replace(/:/g, '');

/**
 * A DICOM Encapsulated PDF instance (modality DOC) holding the report, in a series of its own in
 * the report's study, so viewers, the Info dialog and the download see it like any other series.
 */
export function buildEncapsulatedPdf(p: {
  study: ReportStudyAttributes;
  pdf: Buffer;
  title: string;
  seriesNumber: number;
  at: Date;
}): { bytes: Buffer; seriesInstanceUid: string; sopInstanceUid: string; seriesNumber: number } {
  const seriesInstanceUid = newUid();
  const sopInstanceUid = newUid();
  // OB values are padded to an even length.
  const doc = new Uint8Array(p.pdf.length + (p.pdf.length % 2));
  doc.set(p.pdf);
  const s = p.study;
  const dataset = {
    SpecificCharacterSet: 'ISO_IR 192',
    SOPClassUID: ENCAPSULATED_PDF_SOP_CLASS,
    SOPInstanceUID: sopInstanceUid,
    StudyDate: da(s.studyDate),
    StudyTime: s.studyTime ?? '',
    AccessionNumber: s.accessionNumber ?? '',
    Modality: 'DOC',
    ConversionType: 'WSD',
    ReferringPhysicianName: '',
    StudyDescription: s.studyDescription ?? '',
    SeriesDescription: p.title.slice(0, 64),
    PatientName: s.patientName ?? '',
    PatientID: s.patientId ?? '',
    PatientBirthDate: da(s.patientBirthDate),
    PatientSex: s.patientSex ?? '',
    ...(s.patientAge ? { PatientAge: s.patientAge } : {}),
    StudyInstanceUID: s.studyInstanceUid,
    SeriesInstanceUID: seriesInstanceUid,
    StudyID: '',
    SeriesNumber: p.seriesNumber,
    InstanceNumber: 1,
    ContentDate: da(p.at.toISOString().slice(0, 10)),
    ContentTime: dicomTime(p.at),
    AcquisitionDateTime: `${da(p.at.toISOString().slice(0, 10))}${dicomTime(p.at)}`,
    BurnedInAnnotation: 'YES',
    DocumentTitle: p.title.slice(0, 64),
    ConceptNameCodeSequence: [],
    MIMETypeOfEncapsulatedDocument: 'application/pdf',
    EncapsulatedDocument: doc.buffer,
    EncapsulatedDocumentLength: p.pdf.length,
    _vrMap: { EncapsulatedDocument: 'OB' },
  };
  const meta = {
    FileMetaInformationVersion: new Uint8Array([0, 1]).buffer,
    MediaStorageSOPClassUID: ENCAPSULATED_PDF_SOP_CLASS,
    MediaStorageSOPInstanceUID: sopInstanceUid,
    TransferSyntaxUID: EXPLICIT_VR_LITTLE_ENDIAN,
    ImplementationClassUID: IMPLEMENTATION_CLASS_UID,
  };
  const dict = new DicomDict(DicomMetaDictionary.denaturalizeDataset(meta));
  dict.dict = DicomMetaDictionary.denaturalizeDataset(dataset);
  return {
    bytes: Buffer.from(dict.write()),
    seriesInstanceUid,
    sopInstanceUid,
    seriesNumber: p.seriesNumber,
  };
}
