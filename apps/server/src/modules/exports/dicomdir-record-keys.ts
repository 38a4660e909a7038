import type { DataSet } from 'dicom-parser';
import type { CharacterSet } from '../../dicom/charset';
import { ascii, firstCode, personName, text, uid } from '../../dicom/values';

/**
 * Directory records of presentation states, RT objects and waveforms (DICOM PS3.3 Annex F.5:
 * F.5.19 RT Dose, F.5.20 RT Structure Set, F.5.21 RT Plan, F.5.22 RT Treatment Record, F.5.23
 * Presentation State, F.5.24 Waveform) and the SOP classes each one references. Used by
 * dicomdir.ts, which writes the records.
 */

export type ObjectRecordType =
  'PRESENTATION' | 'RT DOSE' | 'RT STRUCTURE SET' | 'RT PLAN' | 'RT TREAT RECORD' | 'WAVEFORM';

/**
 * Which images a PRESENTATION record lists (PS3.3 Table F.5-23): Referenced Series Sequence when
 * the IOD includes the Presentation State Relationship Module, Blending Sequence when the instance
 * has one (the Blending Softcopy Presentation State, where it is Type 1), neither otherwise.
 */
export type PresentationReferences = 'series' | 'blending' | 'none';

interface ClassEntry {
  type: ObjectRecordType;
  references?: PresentationReferences;
}

const PS = (references: PresentationReferences): ClassEntry => ({ type: 'PRESENTATION', references });
const RT = (type: ObjectRecordType): ClassEntry => ({ type });
const WAVEFORM: ClassEntry = { type: 'WAVEFORM' };

/**
 * Storage SOP Class UID → record type. UIDs as registered in PS3.6 Table A-1 and listed as Storage
 * SOP Classes in PS3.4 Annex B, DICOM 2024e edition; record types as PS3.3 Annex F.5 (2024e) assigns
 * them: F.5.23 to "a Presentation State SOP Instance or a Structured Display SOP Instance", F.5.24 to
 * "a Waveform SOP Instance", F.5.19–F.5.22 to the first-generation RT objects (RT Image is an image,
 * with an IMAGE record). The second-generation RT objects (RADIOTHERAPY records, F.5.46) and the
 * Waveform Presentation States (a record type of their own) are not here: they get IMAGE records.
 */
const RECORD_TYPE_OF_CLASS: Record<string, ClassEntry> = {
  // Presentation states (PS3.3 A.33, A.80) and the structured display (A.56).
  '1.2.840.10008.5.1.4.1.1.11.1': PS('series'), // Grayscale Softcopy Presentation State
  '1.2.840.10008.5.1.4.1.1.11.2': PS('series'), // Color Softcopy Presentation State
  '1.2.840.10008.5.1.4.1.1.11.3': PS('series'), // Pseudo-Color Softcopy Presentation State
  '1.2.840.10008.5.1.4.1.1.11.4': PS('blending'), // Blending Softcopy Presentation State
  '1.2.840.10008.5.1.4.1.1.11.5': PS('series'), // XA/XRF Grayscale Softcopy Presentation State
  '1.2.840.10008.5.1.4.1.1.11.6': PS('none'), // Grayscale Planar MPR Volumetric Presentation State
  '1.2.840.10008.5.1.4.1.1.11.7': PS('none'), // Compositing Planar MPR Volumetric Presentation State
  '1.2.840.10008.5.1.4.1.1.11.8': PS('none'), // Advanced Blending Presentation State
  '1.2.840.10008.5.1.4.1.1.11.9': PS('none'), // Volume Rendering Volumetric Presentation State
  '1.2.840.10008.5.1.4.1.1.11.10': PS('none'), // Segmented Volume Rendering Volumetric Presentation State
  '1.2.840.10008.5.1.4.1.1.11.11': PS('none'), // Multiple Volume Rendering Volumetric Presentation State
  '1.2.840.10008.5.1.4.1.1.11.12': PS('series'), // Variable Modality LUT Softcopy Presentation State
  '1.2.840.10008.5.1.4.1.1.131': PS('none'), // Basic Structured Display
  // First-generation RT objects (PS3.3 A.18–A.20, A.29–A.31, A.49, A.50).
  '1.2.840.10008.5.1.4.1.1.481.2': RT('RT DOSE'), // RT Dose
  '1.2.840.10008.5.1.4.1.1.481.3': RT('RT STRUCTURE SET'), // RT Structure Set
  '1.2.840.10008.5.1.4.1.1.481.4': RT('RT TREAT RECORD'), // RT Beams Treatment Record
  '1.2.840.10008.5.1.4.1.1.481.5': RT('RT PLAN'), // RT Plan
  '1.2.840.10008.5.1.4.1.1.481.6': RT('RT TREAT RECORD'), // RT Brachy Treatment Record
  '1.2.840.10008.5.1.4.1.1.481.7': RT('RT TREAT RECORD'), // RT Treatment Summary Record
  '1.2.840.10008.5.1.4.1.1.481.8': RT('RT PLAN'), // RT Ion Plan
  '1.2.840.10008.5.1.4.1.1.481.9': RT('RT TREAT RECORD'), // RT Ion Beams Treatment Record
  // Waveforms (PS3.3 A.34, A.35).
  '1.2.840.10008.5.1.4.1.1.9.1.1': WAVEFORM, // 12-lead ECG
  '1.2.840.10008.5.1.4.1.1.9.1.2': WAVEFORM, // General ECG
  '1.2.840.10008.5.1.4.1.1.9.1.3': WAVEFORM, // Ambulatory ECG
  '1.2.840.10008.5.1.4.1.1.9.1.4': WAVEFORM, // General 32-bit ECG
  '1.2.840.10008.5.1.4.1.1.9.2.1': WAVEFORM, // Hemodynamic
  '1.2.840.10008.5.1.4.1.1.9.3.1': WAVEFORM, // Cardiac Electrophysiology
  '1.2.840.10008.5.1.4.1.1.9.4.1': WAVEFORM, // Basic Voice Audio
  '1.2.840.10008.5.1.4.1.1.9.4.2': WAVEFORM, // General Audio
  '1.2.840.10008.5.1.4.1.1.9.5.1': WAVEFORM, // Arterial Pulse
  '1.2.840.10008.5.1.4.1.1.9.6.1': WAVEFORM, // Respiratory
  '1.2.840.10008.5.1.4.1.1.9.6.2': WAVEFORM, // Multi-channel Respiratory
  '1.2.840.10008.5.1.4.1.1.9.7.1': WAVEFORM, // Routine Scalp Electroencephalogram
  '1.2.840.10008.5.1.4.1.1.9.7.2': WAVEFORM, // Electromyogram
  '1.2.840.10008.5.1.4.1.1.9.7.3': WAVEFORM, // Electrooculogram
  '1.2.840.10008.5.1.4.1.1.9.7.4': WAVEFORM, // Sleep Electroencephalogram
  '1.2.840.10008.5.1.4.1.1.9.8.1': WAVEFORM, // Body Position
};

/** The record type of a presentation state, RT object or waveform class; undefined for others. */
export function objectRecordTypeOf(sopClassUid: string): ObjectRecordType | undefined {
  return RECORD_TYPE_OF_CLASS[sopClassUid]?.type;
}

/** Which images a presentation state's record lists ('none' for every other class). */
export function presentationReferencesOf(sopClassUid: string): PresentationReferences {
  return RECORD_TYPE_OF_CLASS[sopClassUid]?.references ?? 'none';
}

/** An image a presentation state applies to (SOP Instance Reference Macro, PS3.3 Table 10-11). */
export interface ImageReference {
  sopClassUid: string;
  sopInstanceUid: string;
}

/** An item of a Referenced Series Sequence (0008,1115). */
export interface SeriesReference {
  seriesInstanceUid: string;
  images: ImageReference[];
}

/** An item of a Blending Sequence (0070,0402). */
export interface StudyReference {
  studyInstanceUid: string;
  series: SeriesReference[];
}

/** Keys of a presentation state's or an RT object's record, as read from the file. */
export interface ObjectKeys {
  presentationCreationDate: string | null;
  presentationCreationTime: string | null;
  contentLabel: string | null;
  contentDescription: string | null;
  contentCreatorName: string | null;
  /** Null when absent or when an item lacks one of its Type 1 attributes. */
  referencedSeries: SeriesReference[] | null;
  blending: StudyReference[] | null;
  doseSummationType: string | null;
  doseComment: string | null;
  structureSetLabel: string | null;
  structureSetDate: string | null;
  structureSetTime: string | null;
  rtPlanLabel: string | null;
  rtPlanDate: string | null;
  rtPlanTime: string | null;
  treatmentDate: string | null;
  treatmentTime: string | null;
}

type Items = Array<{ dataSet?: DataSet }> | undefined;

/** A Referenced Series Sequence's items, or null when any item lacks what the record needs. */
function seriesReferences(items: Items): SeriesReference[] | null {
  const out: SeriesReference[] = [];
  for (const it of items ?? []) {
    const s = it.dataSet;
    const seriesInstanceUid = s ? uid(s, 'x0020000e') : null;
    if (!s || !seriesInstanceUid) return null;
    const images: ImageReference[] = [];
    for (const im of (s.elements.x00081140?.items as Items) ?? []) {
      const sopClassUid = im.dataSet ? uid(im.dataSet, 'x00081150') : null;
      const sopInstanceUid = im.dataSet ? uid(im.dataSet, 'x00081155') : null;
      if (!sopClassUid || !sopInstanceUid) return null;
      images.push({ sopClassUid, sopInstanceUid });
    }
    if (!images.length) return null;
    out.push({ seriesInstanceUid, images });
  }
  return out.length ? out : null;
}

function blendingReferences(items: Items): StudyReference[] | null {
  const out: StudyReference[] = [];
  for (const it of items ?? []) {
    const s = it.dataSet;
    const studyInstanceUid = s ? uid(s, 'x0020000d') : null;
    const series = s ? seriesReferences(s.elements.x00081115?.items as Items) : null;
    if (!studyInstanceUid || !series) return null;
    out.push({ studyInstanceUid, series });
  }
  // The Blending Sequence has exactly two items: the underlying and the superimposed images.
  return out.length === 2 ? out : null;
}

export function objectKeysOf(ds: DataSet, cs: CharacterSet): ObjectKeys {
  const code = (tag: string) => firstCode(ascii(ds, tag));
  return {
    presentationCreationDate: code('x00700082'),
    presentationCreationTime: code('x00700083'),
    contentLabel: code('x00700080'),
    contentDescription: text(ds, 'x00700081', cs),
    contentCreatorName: personName(ds, 'x00700084', cs),
    referencedSeries: seriesReferences(ds.elements.x00081115?.items as Items),
    blending: blendingReferences(ds.elements.x00700402?.items as Items),
    doseSummationType: code('x3004000a'),
    doseComment: text(ds, 'x30040006', cs),
    structureSetLabel: text(ds, 'x30060002', cs),
    structureSetDate: code('x30060008'),
    structureSetTime: code('x30060009'),
    rtPlanLabel: text(ds, 'x300a0002', cs),
    rtPlanDate: code('x300a0006'),
    rtPlanTime: code('x300a0007'),
    treatmentDate: code('x30080250'),
    treatmentTime: code('x30080251'),
  };
}

/**
 * Whether the keys hold every Type 1 key of the record that cannot be made up: a label, the dose
 * summation type, the images a presentation state applies to. (Dates, times and instance numbers
 * get placeholders, as for the other records.) A valid file always has them; one that does not is
 * listed as an IMAGE rather than with an invented label.
 */
export function hasRequiredObjectKeys(
  type: ObjectRecordType,
  sopClassUid: string,
  k: ObjectKeys | undefined,
): boolean {
  if (type === 'WAVEFORM') return true;
  if (!k) return false;
  switch (type) {
    case 'PRESENTATION': {
      const refs = presentationReferencesOf(sopClassUid);
      if (refs === 'series' && !k.referencedSeries) return false;
      if (refs === 'blending' && !k.blending) return false;
      return Boolean(k.contentLabel);
    }
    case 'RT DOSE':
      return Boolean(k.doseSummationType);
    case 'RT STRUCTURE SET':
      return Boolean(k.structureSetLabel);
    case 'RT PLAN':
      return Boolean(k.rtPlanLabel);
    case 'RT TREAT RECORD':
      return true;
  }
}
