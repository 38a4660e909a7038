import type { DicomJson } from './part10';
import type { MetadataInstance, SeriesRow, StudyRow } from './dicomweb.repository';

/**
 * The DICOM JSON (PS3.18 F.2) the index answers for a study, series or instance without reading
 * its files, and which attributes a QIDO-RS search returns by default and may match on.
 */

/** What a search returns at each level unless it asks for more (includefield). */
export const STUDY_DEFAULTS = new Set([
  '00080005',
  '00080020',
  '00080030',
  '00080050',
  '00080056',
  '00080061',
  '00080090',
  '00081030',
  '00100010',
  '00100020',
  '00100030',
  '00100040',
  '0020000D',
  '00200010',
  '00201206',
  '00201208',
]);
export const SERIES_DEFAULTS = new Set([
  '00080005',
  '00080060',
  '0008103E',
  '0020000E',
  '00200011',
  '00201209',
  '00080056',
  '0020000D',
]);
export const INSTANCE_DEFAULTS = new Set([
  '00080005',
  '00080016',
  '00080018',
  '00080056',
  '00200013',
  '0020000D',
  '0020000E',
  '00280008',
  '00280010',
  '00280011',
  '00280100',
]);

const str = (vr: string, v: string | null | undefined) => (v ? { vr, Value: [v] } : { vr });
const num = (vr: string, v: number | null | undefined) =>
  v === null || v === undefined ? { vr } : { vr, Value: [v] };
const da = (v: string | null) => str('DA', v ? v.replace(/-/g, '') : null);
const pn = (v: string | null) => (v ? { vr: 'PN', Value: [{ Alphabetic: v }] } : { vr: 'PN' });

export function studyAttributes(s: StudyRow): DicomJson {
  return {
    '00080005': { vr: 'CS', Value: ['ISO_IR 192'] },
    '00080020': da(s.studyDate),
    '00080030': str('TM', s.studyTime),
    '00080050': str('SH', s.accessionNumber),
    '00080056': { vr: 'CS', Value: ['ONLINE'] },
    '00080061': s.modalities.length ? { vr: 'CS', Value: [...s.modalities] } : { vr: 'CS' },
    '00080080': str('LO', s.institutionName),
    '00080090': { vr: 'PN' },
    '00081030': str('LO', s.studyDescription),
    '00100010': pn(s.patientName),
    '00100020': str('LO', s.patientId),
    '00100030': da(s.patientBirthDate),
    '00100040': str('CS', s.patientSex),
    '00101010': str('AS', s.patientAge),
    '00180015': str('CS', s.bodyPart),
    '0020000D': str('UI', s.studyInstanceUid),
    '00200010': { vr: 'SH' },
    '00201206': num('IS', s.seriesCount),
    '00201208': num('IS', s.instanceCount),
  };
}

export function seriesAttributes(se: SeriesRow, s: StudyRow): DicomJson {
  return {
    ...studyAttributes(s),
    '00080060': str('CS', se.modality),
    '0008103E': str('LO', se.seriesDescription),
    '00180015': str('CS', se.bodyPart ?? s.bodyPart),
    '0020000E': str('UI', se.seriesInstanceUid),
    '00200011': num('IS', se.seriesNumber),
    '00201209': num('IS', se.instanceCount),
  };
}

export function instanceAttributes(
  i: Pick<MetadataInstance, 'sopClassUid' | 'sopInstanceUid' | 'transferSyntaxUid' | 'instanceNumber'>,
  se: SeriesRow,
  s: StudyRow,
): DicomJson {
  return {
    ...seriesAttributes(se, s),
    '00080016': str('UI', i.sopClassUid),
    '00080018': str('UI', i.sopInstanceUid),
    '00083002': str('UI', i.transferSyntaxUid),
    '00200013': num('IS', i.instanceNumber),
  };
}

const matchableOf = (attrs: DicomJson) => new Set(Object.keys(attrs));
export const STUDY_MATCHABLE = matchableOf(studyAttributes({ modalities: [] } as unknown as StudyRow));
export const SERIES_MATCHABLE = new Set([
  ...STUDY_MATCHABLE,
  '00080060',
  '0008103E',
  '0020000E',
  '00200011',
  '00201209',
]);
export const INSTANCE_MATCHABLE = new Set([
  ...SERIES_MATCHABLE,
  '00080016',
  '00080018',
  '00083002',
  '00200013',
]);
