import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { readDataSet } from '../../dicom/data-set';
import { pixelGeometry, renderBudgetProblem } from '../../dicom/pixel-budget';

const require = createRequire(import.meta.url);

interface RenderResult {
  pixels: ArrayBuffer;
  width: number;
  height: number;
}
interface DicomImageLike {
  getNumberOfFrames(): number;
  render(opts: { frame?: number; renderOverlays?: boolean }): RenderResult;
}
interface Imaging {
  DicomImage: new (buffer: ArrayBuffer) => DicomImageLike;
  NativePixelDecoder: {
    initializeAsync(opts: {
      webAssemblyModulePathOrUrl?: string;
      logNativeDecodersMessages?: boolean;
    }): Promise<void>;
  };
}

let ready: Promise<Imaging> | undefined;

/** dcmjs-imaging with its WebAssembly decoders (JPEG, JPEG-LS, JPEG 2000, RLE), loaded once. */
function imaging(): Promise<Imaging> {
  ready ??= (async () => {
    const mod = require('dcmjs-imaging') as Imaging;
    const wasm = path.join(path.dirname(require.resolve('dcmjs-imaging')), 'dcmjs-native-codecs.wasm');
    await mod.NativePixelDecoder.initializeAsync({
      webAssemblyModulePathOrUrl: wasm,
      logNativeDecodersMessages: false,
    });
    return mod;
  })();
  return ready;
}

export const THUMBNAIL_SIZE = 256;

/** An image that must not be decoded (see dicom/pixel-budget.ts); its message says why. */
export class RenderBudgetError extends Error {
  override readonly name = 'RenderBudgetError';
}

/** Refuses, from the header alone, an image whose declared size its bytes or the cap do not allow. */
function checkBudget(file: Uint8Array, maxDecodedBytes: number | undefined): void {
  let geometry;
  try {
    geometry = pixelGeometry(readDataSet(file));
  } catch {
    throw new RenderBudgetError('malformed DICOM file');
  }
  if (!geometry) throw new RenderBudgetError('no pixel data');
  const problem = renderBudgetProblem(geometry, maxDecodedBytes);
  if (problem) throw new RenderBudgetError(problem);
}

/**
 * One frame (from 0; the middle one when not given) drawn with the file's VOI, as RGBA pixels in a
 * sharp pipeline, black under any transparency. RangeError when the instance has no such frame.
 * Runs in the render pool's workers (render-pool.ts), never on the server's main thread.
 */
async function drawFrame(
  file: Uint8Array,
  frame: number | undefined,
  renderOverlays: boolean,
  maxDecodedBytes?: number,
): Promise<sharp.Sharp> {
  checkBudget(file, maxDecodedBytes);
  const { DicomImage } = await imaging();
  const copy = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
  const image = new DicomImage(copy);
  const frames = Math.max(1, image.getNumberOfFrames());
  if (frame !== undefined && frame >= frames) throw new RangeError('no such frame');
  const result = image.render({ frame: frame ?? Math.floor(frames / 2), renderOverlays });
  if (!result.width || !result.height) throw new Error('empty image');
  return sharp(Buffer.from(result.pixels), {
    raw: { width: result.width, height: result.height, channels: 4 },
  });
}

/** Renders the middle frame of an instance (VOI from the file, overlays left out) into a small WebP. */
export async function renderThumbnail(file: Uint8Array, maxDecodedBytes?: number): Promise<Buffer> {
  return (await drawFrame(file, undefined, false, maxDecodedBytes))
    .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 1 } })
    .flatten({ background: '#000000' })
    .webp({ quality: 80 })
    .toBuffer();
}

/** One frame (from 0) at full size as JPEG or PNG, for WADO-URI image requests. */
export async function renderFrame(
  file: Uint8Array,
  frame: number,
  format: 'jpeg' | 'png',
  maxDecodedBytes?: number,
): Promise<Buffer> {
  const raw = (await drawFrame(file, frame, true, maxDecodedBytes)).flatten({ background: '#000000' });
  return format === 'png' ? raw.png().toBuffer() : raw.jpeg({ quality: 90 }).toBuffer();
}

/**
 * A frame (from 0; the middle one when not given) scaled to fit `width`×`height` without
 * enlarging, as JPEG or PNG: DICOMweb's rendered thumbnails.
 */
export async function renderFitted(
  file: Uint8Array,
  frame: number | undefined,
  format: 'jpeg' | 'png',
  width: number,
  height: number,
  maxDecodedBytes?: number,
): Promise<Buffer> {
  const scaled = (await drawFrame(file, frame, false, maxDecodedBytes))
    .resize(width, height, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#000000' });
  return format === 'png' ? scaled.png().toBuffer() : scaled.jpeg({ quality: 85 }).toBuffer();
}
