import type { DataSet } from 'dicom-parser';
import { isNativeSyntax } from '../../dicom/transfer-syntax';
import { frameInfo, readFrame, type ParsedInstance } from '../dicomweb';

/** What the automated report reads from one instance's header. */
export interface InstanceFacts {
  instanceNumber: number | null;
  /** Image Position Patient (mm). */
  position: [number, number, number] | null;
  /** Image Orientation Patient: row then column direction cosines. */
  orientation: [number, number, number, number, number, number] | null;
  frames: number;
  acquisition: Acquisition;
}

/** Acquisition parameters as the header states them; absent ones are undefined. */
export interface Acquisition {
  modality?: string;
  kvp?: number;
  /** mAs (Exposure, or Exposure in µAs / 1000). */
  exposureMas?: number;
  tubeCurrentMa?: number;
  sliceThicknessMm?: number;
  spacingBetweenSlicesMm?: number;
  pixelSpacingMm?: [number, number];
  rows?: number;
  columns?: number;
  convolutionKernel?: string;
  magneticFieldStrengthT?: number;
  echoTimeMs?: number;
  repetitionTimeMs?: number;
  ctdiVolMgy?: number;
  dlpMgyCm?: number;
}

/** Min, max and mean of the stored values of one decoded image. */
export interface PixelStatistics {
  min: number;
  max: number;
  mean: number;
  pixels: number;
}

export interface SeriesInput {
  seriesNumber: number | null;
  description: string | null;
  modality: string | null;
  instances: InstanceFacts[];
  /** Statistics of the middle image, or why there are none. */
  statistics: PixelStatistics | { unavailable: string };
}

export interface ReportSection {
  heading: string;
  text: string;
}

const str = (ds: DataSet, tag: string): string | undefined => {
  try {
    const v = ds.string(tag)?.replace(/\0/g, '').trim();
    return v ? v : undefined;
  } catch {
    return undefined;
  }
};

/** A decimal string (DS/IS) value, or a binary float (FD/FL) when the element has 8/4 bytes and no text. */
function num(ds: DataSet, tag: string, index = 0): number | undefined {
  const el = ds.elements[tag];
  if (!el || el.length === 0) return undefined;
  const text = str(ds, tag);
  if (text !== undefined) {
    const parts = text.split('\\');
    const v = Number.parseFloat(parts[index] ?? '');
    if (Number.isFinite(v) && /^[\s+\-.\deE]+$/.test(parts[index] ?? '')) return v;
  }
  return undefined;
}

function binaryFloat(ds: DataSet, tag: string): number | undefined {
  const el = ds.elements[tag];
  if (!el) return undefined;
  try {
    if (el.length === 8) return finite(ds.double(tag));
    if (el.length === 4) return finite(ds.float(tag));
  } catch {
    return undefined;
  }
  return num(ds, tag);
}

const finite = (v: number | undefined) => (v !== undefined && Number.isFinite(v) ? v : undefined);

function ushort(ds: DataSet, tag: string): number | undefined {
  const el = ds.elements[tag];
  if (!el || el.length < 2) return undefined;
  try {
    return ds.uint16(tag);
  } catch {
    return undefined;
  }
}

/** The header facts of one instance (a data set parsed with dictionary VRs, see dicomweb/part10.ts). */
export function instanceFacts(ds: DataSet): InstanceFacts {
  const vec = (tag: string, n: number): number[] | null => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const v = num(ds, tag, i);
      if (v === undefined) return null;
      out.push(v);
    }
    return out;
  };
  const exposure = num(ds, 'x00181152');
  const exposureUas = num(ds, 'x00181153') ?? binaryFloat(ds, 'x00181153');
  const ps = vec('x00280030', 2);
  const kernel = str(ds, 'x00181210');
  const acquisition: Acquisition = {
    modality: str(ds, 'x00080060'),
    kvp: num(ds, 'x00180060'),
    exposureMas: exposure ?? (exposureUas !== undefined ? exposureUas / 1000 : undefined),
    tubeCurrentMa: num(ds, 'x00181151'),
    sliceThicknessMm: num(ds, 'x00180050'),
    spacingBetweenSlicesMm: num(ds, 'x00180088'),
    pixelSpacingMm: ps ? [ps[0]!, ps[1]!] : undefined,
    rows: ushort(ds, 'x00280010'),
    columns: ushort(ds, 'x00280011'),
    convolutionKernel: kernel?.replace(/\\/g, ', '),
    magneticFieldStrengthT: num(ds, 'x00180087'),
    echoTimeMs: num(ds, 'x00180081'),
    repetitionTimeMs: num(ds, 'x00180080'),
    ctdiVolMgy: binaryFloat(ds, 'x00189345'),
    dlpMgyCm: binaryFloat(ds, 'x00189302') ?? undefined,
  };
  const inst = num(ds, 'x00200013');
  const frames = num(ds, 'x00280008');
  return {
    instanceNumber: inst !== undefined ? Math.trunc(inst) : null,
    position: vec('x00200032', 3) as InstanceFacts['position'],
    orientation: vec('x00200037', 6) as InstanceFacts['orientation'],
    frames: frames !== undefined && frames >= 1 ? Math.trunc(frames) : 1,
    acquisition,
  };
}

/**
 * Min, max and mean of the stored values of one frame of uncompressed pixel data (single-sample
 * images; colour and compressed images are reported as not measured rather than guessed).
 */
export function pixelStatistics(p: ParsedInstance, frame = 0): PixelStatistics | { unavailable: string } {
  const info = frameInfo(p);
  if (!info) return { unavailable: 'no pixel data' };
  if (info.encapsulated || !isNativeSyntax(p.transferSyntaxUid))
    return { unavailable: 'compressed pixel data (not decoded for statistics)' };
  const samples = ushort(p.ds, 'x00280002') ?? 1;
  if (samples !== 1) return { unavailable: 'colour image' };
  const bits = ushort(p.ds, 'x00280100');
  const signed = ushort(p.ds, 'x00280103') === 1;
  const rows = ushort(p.ds, 'x00280010') ?? 0;
  const cols = ushort(p.ds, 'x00280011') ?? 0;
  const count = rows * cols;
  if (!count || (bits !== 8 && bits !== 16 && bits !== 32))
    return { unavailable: 'unsupported pixel layout' };
  let bytes: Uint8Array;
  try {
    bytes = readFrame(p, Math.min(frame, info.count - 1));
  } catch (err) {
    return { unavailable: (err as Error).message };
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const step = bits / 8;
  const n = Math.min(count, Math.floor(bytes.byteLength / step));
  if (n === 0) return { unavailable: 'empty pixel data' };
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const o = i * step;
    const v =
      bits === 8
        ? signed
          ? view.getInt8(o)
          : view.getUint8(o)
        : bits === 16
          ? signed
            ? view.getInt16(o, true)
            : view.getUint16(o, true)
          : signed
            ? view.getInt32(o, true)
            : view.getUint32(o, true);
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
  }
  return { min, max, mean: sum / n, pixels: n };
}

/** Slice positions along the patient axis (the normal of the image plane), sorted, in mm. */
export function slicePositions(instances: readonly InstanceFacts[]): number[] {
  const withPos = instances.filter((i) => i.position && i.orientation);
  if (withPos.length === 0) return [];
  const o = withPos[0]!.orientation!;
  const normal = [o[1] * o[5] - o[2] * o[4], o[2] * o[3] - o[0] * o[5], o[0] * o[4] - o[1] * o[3]];
  return withPos.map((i) => i.position!.reduce((sum, v, k) => sum + v * normal[k]!, 0)).sort((a, b) => a - b);
}

export interface Coverage {
  slices: number;
  fromMm: number;
  toMm: number;
  lengthMm: number;
  /** The most common distance between neighbouring slices. */
  spacingMm: number | null;
  gaps: Array<{ afterSlice: number; distanceMm: number }>;
  duplicates: number;
}

const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;

/**
 * Coverage of a stack of slices and its gaps: a gap is a step between neighbours more than 1.5
 * times the usual (median) step; slices at the same place are counted as duplicates.
 */
export function coverage(positions: readonly number[]): Coverage | null {
  if (positions.length === 0) return null;
  const steps: number[] = [];
  let duplicates = 0;
  for (let i = 1; i < positions.length; i++) {
    const d = positions[i]! - positions[i - 1]!;
    if (d < 1e-3) duplicates++;
    else steps.push(d);
  }
  const sorted = [...steps].sort((a, b) => a - b);
  const median = sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : null;
  const gaps: Coverage['gaps'] = [];
  if (median !== null) {
    for (let i = 1; i < positions.length; i++) {
      const d = positions[i]! - positions[i - 1]!;
      if (d > median * 1.5 + 1e-3) gaps.push({ afterSlice: i, distanceMm: round(d) });
    }
  }
  const from = positions[0]!;
  const to = positions[positions.length - 1]!;
  return {
    slices: positions.length,
    fromMm: round(from),
    toMm: round(to),
    lengthMm: round(to - from),
    spacingMm: median !== null ? round(median) : null,
    gaps,
    duplicates,
  };
}

/** The distinct values of one parameter across a series, for "2 mm" or "1 mm, 2 mm (varies)". */
function distinct<T>(instances: readonly InstanceFacts[], pick: (a: Acquisition) => T | undefined): T[] {
  const seen = new Map<string, T>();
  for (const i of instances) {
    const v = pick(i.acquisition);
    if (v !== undefined) seen.set(JSON.stringify(v), v);
  }
  return [...seen.values()];
}

const fmt = (v: number) => String(round(v, 3));

function describe<T>(label: string, values: T[], show: (v: T) => string, max = 4): string | null {
  if (values.length === 0) return null;
  const shown = values.slice(0, max).map(show).join(', ');
  return `${label}: ${shown}${values.length > 1 ? ` (varies across ${values.length} values)` : ''}`;
}

/** The acquisition parameters of a series' instances, each with how much it varies. */
function acquisitionLines(s: SeriesInput): string[] {
  return [
    describe(
      'Slice thickness',
      distinct(s.instances, (a) => a.sliceThicknessMm),
      (v) => `${fmt(v)} mm`,
    ),
    describe(
      'Spacing between slices',
      distinct(s.instances, (a) => a.spacingBetweenSlicesMm),
      (v) => `${fmt(v)} mm`,
    ),
    describe(
      'Pixel spacing',
      distinct(s.instances, (a) => a.pixelSpacingMm),
      (v) => `${fmt(v[0])} × ${fmt(v[1])} mm`,
    ),
    describe(
      'Matrix (rows × columns)',
      distinct(s.instances, (a) => (a.rows && a.columns ? `${a.rows} × ${a.columns}` : undefined)),
      (v) => v,
    ),
    describe(
      'Tube voltage (kVp)',
      distinct(s.instances, (a) => a.kvp),
      fmt,
    ),
    describe(
      'Exposure (mAs)',
      distinct(s.instances, (a) => a.exposureMas),
      fmt,
    ),
    describe(
      'Tube current (mA)',
      distinct(s.instances, (a) => a.tubeCurrentMa),
      fmt,
    ),
    describe(
      'Convolution kernel',
      distinct(s.instances, (a) => a.convolutionKernel),
      (v) => v,
    ),
    describe(
      'Magnetic field strength',
      distinct(s.instances, (a) => a.magneticFieldStrengthT),
      (v) => `${fmt(v)} T`,
    ),
    describe(
      'Echo time',
      distinct(s.instances, (a) => a.echoTimeMs),
      (v) => `${fmt(v)} ms`,
    ),
    describe(
      'Repetition time',
      distinct(s.instances, (a) => a.repetitionTimeMs),
      (v) => `${fmt(v)} ms`,
    ),
  ].filter((l): l is string => l !== null);
}

/** How the series covers the patient axis: its slice positions, gaps and repeats. */
function coverageLines(s: SeriesInput): string[] {
  const lines: string[] = [];
  const cov = coverage(slicePositions(s.instances));
  if (cov && cov.slices > 1) {
    lines.push(
      `Coverage along the patient axis: ${cov.slices} slice positions from ${cov.fromMm} mm to ${cov.toMm} mm (${cov.lengthMm} mm), usual step ${cov.spacingMm ?? '-'} mm`,
    );
    lines.push(
      cov.gaps.length === 0
        ? 'Gaps: none found'
        : `Gaps: ${cov.gaps.length} (${cov.gaps
            .slice(0, 5)
            .map((g) => `${g.distanceMm} mm after slice position ${g.afterSlice}`)
            .join('; ')})`,
    );
    if (cov.duplicates > 0) lines.push(`Slices at a repeated position: ${cov.duplicates}`);
  } else if (cov) {
    lines.push('Coverage along the patient axis: a single slice position');
  } else {
    lines.push('Coverage along the patient axis: not computable (no Image Position/Orientation Patient)');
  }
  return lines;
}

/** The report's lines for one series. */
export function seriesSection(s: SeriesInput, index: number): ReportSection {
  const images = s.instances.reduce((n, i) => n + i.frames, 0);
  const lines: string[] = [];
  lines.push(`Modality: ${s.modality ?? distinct(s.instances, (a) => a.modality)[0] ?? 'not stated'}`);
  lines.push(
    `Images: ${images}${images !== s.instances.length ? ` (in ${s.instances.length} instances)` : ''}`,
  );
  lines.push(...acquisitionLines(s));
  lines.push(...coverageLines(s));
  const ctdi = distinct(s.instances, (a) => a.ctdiVolMgy);
  const dlp = distinct(s.instances, (a) => a.dlpMgyCm);
  const dose = [
    describe('CTDIvol', ctdi, (v) => `${fmt(v)} mGy`),
    describe('DLP', dlp, (v) => `${fmt(v)} mGy·cm`),
  ].filter((l): l is string => l !== null);
  lines.push(...(dose.length ? dose : ['Dose fields: none in the headers']));
  const st = s.statistics;
  lines.push(
    'unavailable' in st
      ? `Image statistics (middle image): not measured (${st.unavailable})`
      : `Image statistics (middle image, stored values): min ${st.min}, max ${st.max}, mean ${round(st.mean)} over ${st.pixels} pixels`,
  );
  const title = [
    `Series ${s.seriesNumber ?? index + 1}`,
    s.modality ?? undefined,
    s.description ? s.description.slice(0, 64) : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
  return { heading: title, text: lines.join('\n') };
}

export const AUTOMATED_NOTICE =
  'This is an automated technical summary computed from the image headers and pixel values of this study. It is not a diagnosis, it does not interpret anatomy or disease, and it has not been reviewed by a clinician. Discuss your images with a qualified professional.';

/** The whole report: notice, overview, one section per series, and how it was made. */
export function technicalReport(series: readonly SeriesInput[]): {
  title: string;
  sections: ReportSection[];
} {
  const images = series.reduce((n, s) => n + s.instances.reduce((m, i) => m + i.frames, 0), 0);
  const modalities = [...new Set(series.map((s) => s.modality).filter(Boolean))];
  const overview = [
    `Series: ${series.length}`,
    `Images: ${images}`,
    `Modalities: ${modalities.length ? modalities.join(', ') : 'not stated'}`,
    ...series.map(
      (s, i) => `Series ${s.seriesNumber ?? i + 1}: ${s.instances.reduce((m, x) => m + x.frames, 0)} images`,
    ),
  ].join('\n');
  return {
    title: 'AI Quick Analysis — automated technical summary (not a diagnosis)',
    sections: [
      { heading: 'About this report', text: AUTOMATED_NOTICE },
      { heading: 'Study overview', text: overview },
      ...series.map((s, i) => seriesSection(s, i)),
      {
        heading: 'Method',
        text: 'Values are read from the DICOM headers of every stored image. Slice positions are projected on the normal of the image plane (Image Position and Orientation Patient); a gap is a step more than 1.5 times the usual one. Image statistics are the stored pixel values of the middle image of each series, before any rescale.',
      },
    ],
  };
}
