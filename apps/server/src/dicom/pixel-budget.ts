import type { DataSet } from 'dicom-parser';
import { numberOfFrames } from './values';

/** Decoded size an instance may declare before it is refused (`DICOM_MAX_DECODED_MB`). */
export const DEFAULT_MAX_DECODED_BYTES = 4096 * 1024 * 1024;
/** Pixels of one frame the renderer draws at most (8192 × 8192): the RGBA it makes stays under 256 MiB. */
export const MAX_RENDERED_FRAME_PIXELS = 8192 * 8192;

/** What a data set says about its image, read from the header without decoding anything. */
export interface PixelGeometry {
  rows: number;
  columns: number;
  frames: number;
  samplesPerPixel: number;
  bitsAllocated: number;
  /** Compressed frames in fragments: their decoded size cannot be checked against their bytes. */
  encapsulated: boolean;
  /** YBR 4:2:2: two samples per pixel stored. */
  subsampled: boolean;
  /** Bytes of pixel data present (for a header-only parse: at most what the file holds), or null. */
  bytesPresent: number | null;
}

/** The image geometry of a data set with Pixel Data, or null when it has none. */
export function pixelGeometry(ds: DataSet, bytesPresentBound?: number): PixelGeometry | null {
  const pixelData = ds.elements.x7fe00010;
  if (!pixelData && bytesPresentBound === undefined) return null;
  const rows = ds.uint16('x00280010') ?? 0;
  const columns = ds.uint16('x00280011') ?? 0;
  if (!pixelData && rows === 0 && columns === 0) return null;
  const encapsulated = Boolean(pixelData?.encapsulatedPixelData) || pixelData?.length === 0xffffffff;
  // 4:2:2 chroma subsampling stores two samples per pixel on average, not three.
  const subsampled = /_422$/.test((ds.string('x00280004') ?? '').trim());
  return {
    rows,
    columns,
    frames: numberOfFrames(ds),
    samplesPerPixel: ds.uint16('x00280002') ?? 1,
    subsampled,
    bitsAllocated: ds.uint16('x00280100') ?? 16,
    encapsulated,
    bytesPresent: pixelData && !encapsulated ? pixelData.length : (bytesPresentBound ?? null),
  };
}

/** Bytes the image decodes to, frames included. */
export function decodedBytes(g: PixelGeometry): number {
  const samples = g.subsampled ? (g.samplesPerPixel * 2) / 3 : g.samplesPerPixel;
  return Math.ceil((g.rows * g.columns * g.frames * samples * g.bitsAllocated) / 8);
}

/**
 * Why an image must not be decoded, or null when it may: checked before any decoder sees it, at
 * ingest and at render, so a few hundred bytes declaring 65535 × 65535 pixels cannot make the server
 * allocate gigabytes.
 */
export function pixelBudgetProblem(
  g: PixelGeometry,
  maxDecodedBytes = DEFAULT_MAX_DECODED_BYTES,
): string | null {
  if (g.rows === 0 || g.columns === 0) return 'image without rows or columns';
  if (![1, 8, 16, 32, 64].includes(g.bitsAllocated) || g.samplesPerPixel < 1 || g.samplesPerPixel > 4)
    return 'image with an unsupported pixel layout';
  const declared = decodedBytes(g);
  // Uncompressed pixel data must hold what the header declares (odd lengths are padded by a byte).
  if (!g.encapsulated && g.bytesPresent !== null && g.bytesPresent < declared - 1)
    return 'pixel data shorter than the image it declares';
  if (declared > maxDecodedBytes)
    return `image too large to display (${g.columns} × ${g.rows} pixels, ${g.frames} ${g.frames === 1 ? 'frame' : 'frames'})`;
  // Compressed frames decode to at least their own size; far less than a frame per frame is not an image.
  if (g.encapsulated && g.bytesPresent !== null && g.bytesPresent < g.frames)
    return 'pixel data missing frames';
  return null;
}

/** The same check for drawing one frame, which also bounds the frame's pixel count. */
export function renderBudgetProblem(
  g: PixelGeometry,
  maxDecodedBytes = DEFAULT_MAX_DECODED_BYTES,
): string | null {
  if (g.rows * g.columns > MAX_RENDERED_FRAME_PIXELS)
    return `image too large to draw (${g.columns} × ${g.rows} pixels)`;
  return pixelBudgetProblem(g, maxDecodedBytes);
}
