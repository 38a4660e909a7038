import { describe, expect, it } from 'vitest';
import {
  collectionBundle,
  dicomwebEndpointResource,
  imagingStudyResource,
  interactiveEndpointResource,
  SHL_ENDPOINT_TYPE_SYSTEM,
} from '../../../src/modules/fhir/fhir-resources';
import {
  dateMatches,
  dateRange,
  parseDateSearch,
  parseSearch,
  parseToken,
  referenceId,
} from '../../../src/modules/fhir/fhir-search';
import { fhirErrors } from './fhir-validator';

const day = (d: string) => dateRange(d)!;
const matches = (search: string, target: string) => {
  const { prefix, range } = parseDateSearch(search);
  return dateMatches(prefix, range, day(target), Date.UTC(2025, 0, 1));
};

describe('FHIR date search', () => {
  it('reads dates at their precision, with time zones', () => {
    expect(day('2024')).toEqual({ start: Date.UTC(2024, 0, 1), end: Date.UTC(2025, 0, 1) });
    expect(day('2024-02')).toEqual({ start: Date.UTC(2024, 1, 1), end: Date.UTC(2024, 2, 1) });
    expect(day('2024-02-29')).toEqual({ start: Date.UTC(2024, 1, 29), end: Date.UTC(2024, 2, 1) });
    expect(day('2024-03-05T10:30+02:00')).toEqual({
      start: Date.UTC(2024, 2, 5, 8, 30),
      end: Date.UTC(2024, 2, 5, 8, 31),
    });
    // A `+` sent unencoded arrives as a space.
    expect(day('2024-03-05T10:30:00 02:00')!.start).toBe(Date.UTC(2024, 2, 5, 8, 30));
    for (const bad of ['2023-02-29', '2024-13', '24-01-01', '2024-01-01T25:00Z', 'yesterday', ''])
      expect(dateRange(bad), bad).toBeNull();
    expect(() => parseDateSearch('gtsoon')).toThrow(/Not a FHIR date/);
  });

  it('applies the prefixes as FHIR R4 defines them', () => {
    const study = '2024-01-15';
    expect(matches('2024-01-15', study)).toBe(true);
    expect(matches('eq2024-01', study)).toBe(true);
    expect(matches('2024-01-16', study)).toBe(false);
    expect(matches('ne2024-01-15', study)).toBe(false);
    expect(matches('ne2023', study)).toBe(true);
    expect(matches('gt2024-01-14', study)).toBe(true);
    expect(matches('gt2024-01-15', study)).toBe(false);
    expect(matches('ge2024-01-15', study)).toBe(true);
    expect(matches('lt2024-01-15', study)).toBe(false);
    expect(matches('lt2024-01-16', study)).toBe(true);
    expect(matches('le2024-01-15', study)).toBe(true);
    expect(matches('le2024-01-14', study)).toBe(false);
    expect(matches('sa2024-01-14', study)).toBe(true);
    expect(matches('sa2024-01', study)).toBe(false);
    expect(matches('eb2024-02', study)).toBe(true);
    expect(matches('eb2024-01-15', study)).toBe(false);
    expect(matches('ap2024-01-20', study)).toBe(true);
    expect(matches('ap2020-01-01', study)).toBe(false);
    // A time inside the day: the day is not within the minute, but it overlaps it.
    expect(matches('eq2024-01-15T12:00Z', study)).toBe(false);
    expect(matches('ge2024-01-15T12:00Z', study)).toBe(true);
  });
});

describe('FHIR search parameters', () => {
  const supported = new Set(['patient', 'started', '_id']);
  it('ANDs repeats, ORs commas, ignores unknown parameters unless strict, refuses modifiers', () => {
    const parsed = parseSearch(
      { patient: 'Patient/a,b', started: ['ge2024', 'lt2025'], _sort: 'x', _format: 'json', _count: '5' },
      supported,
      false,
    );
    expect(parsed.params.get('patient')).toEqual([['Patient/a', 'b']]);
    expect(parsed.params.get('started')).toEqual([['ge2024'], ['lt2025']]);
    expect(parsed.count).toBe(5);
    expect(parsed.applied).toEqual([
      ['patient', 'Patient/a,b'],
      ['started', 'ge2024'],
      ['started', 'lt2025'],
    ]);
    expect(() => parseSearch({ _sort: 'x' }, supported, true)).toThrow(/_sort is not supported/);
    expect(() => parseSearch({ 'patient:missing': 'true' }, supported, false)).toThrow(/modifier/);
    expect(() => parseSearch({ _count: '-1' }, supported, false)).toThrow(/_count/);
    expect(parseSearch({ _count: '100000' }, supported, false).count).toBe(500);
  });

  it('reads tokens and references', () => {
    expect(parseToken('CT')).toEqual({ system: undefined, code: 'CT' });
    expect(parseToken('|CT')).toEqual({ system: null, code: 'CT' });
    expect(parseToken('urn:dicom:uid|urn:oid:1.2.3')).toEqual({
      system: 'urn:dicom:uid',
      code: 'urn:oid:1.2.3',
    });
    expect(referenceId('abc', 'Patient')).toBe('abc');
    expect(referenceId('Patient/abc', 'Patient')).toBe('abc');
    expect(referenceId('https://example.org/fhir/R4/Patient/abc', 'Patient')).toBe('abc');
    expect(referenceId('Group/abc', 'Patient')).toBeNull();
  });
});

describe('FHIR resources', () => {
  it('an ImagingStudy of 2,000 instances lists its series, not its instances, and stays small', () => {
    const study = imagingStudyResource(
      {
        id: '6f1c0a52-1b7e-4a55-9d7c-2b0b8b1f3c11',
        ownerId: '0d7b6a7e-3f4c-4a8e-8b1d-2f1a9c3e5d22',
        studyInstanceUid: '1.2.826.0.1.3680043.8.498.1',
        studyDate: '2024-01-15',
        studyDescription: 'CT chest',
        modalities: ['CT', 'SR'],
        seriesCount: 4,
        instanceCount: 2000,
      },
      [1, 2, 3, 4].map((n) => ({
        seriesInstanceUid: `1.2.826.0.1.3680043.8.498.1.${n}`,
        seriesNumber: n === 4 ? -1 : n,
        modality: n === 4 ? null : 'CT',
        seriesDescription: n === 1 ? '  ' : `Series ${n}`,
        bodyPart: 'CHEST',
        instanceCount: 500,
      })),
    );
    expect(fhirErrors(study)).toEqual([]);
    expect(JSON.stringify(study).length).toBeLessThan(3000);
    expect(JSON.stringify(study)).not.toContain('"instance"');
    expect(study.series).toHaveLength(4);
    expect(study.series!.find((s) => s.uid.endsWith('.4'))).toMatchObject({ modality: { code: 'OT' } });
    expect(study.series!.find((s) => s.uid.endsWith('.4'))!.number).toBeUndefined();
    expect(study.series!.find((s) => s.uid.endsWith('.1'))!.description).toBeUndefined();
    expect(study.started).toBe('2024-01-15');
  });

  it('the two Endpoints of a link: DICOMweb with its credential and end, and the interactive page', () => {
    const end = new Date('2030-01-01T00:00:00Z');
    const wado = dicomwebEndpointResource({
      address: 'https://example.org/dicomweb',
      header: ['Authorization: Bearer abc'],
      expiresAt: end,
    });
    const page = interactiveEndpointResource({
      address: 'https://example.org/shl#shlink:/x',
      expiresAt: end,
    });
    expect(wado).toMatchObject({
      connectionType: { code: 'dicom-wado-rs' },
      header: ['Authorization: Bearer abc'],
      period: { end: '2030-01-01T00:00:00.000Z' },
    });
    expect(page.connectionType).toEqual({
      system: SHL_ENDPOINT_TYPE_SYSTEM,
      code: 'shl-interactive-experience',
    });
    const bundle = collectionBundle('https://example.org/fhir/R4', [wado, page], end);
    expect(fhirErrors(bundle)).toEqual([]);
    expect(bundle.entry!.map((e) => e.fullUrl)).toEqual([
      'https://example.org/fhir/R4/Endpoint/dicomweb',
      'https://example.org/fhir/R4/Endpoint/viewer',
    ]);
  });
});
