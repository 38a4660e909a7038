import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { generateSeries, squareOf } from '../../helpers/dicom-series';
import { createTestContext, registerPatient, type TestContext } from '../../helpers/test-app';

const FIXTURES = path.resolve(__dirname, '../../../../../../shared/fixtures/dicom/pydicom');

/** One fixture per transfer syntax the viewer renders. */
const RENDERABLE = [
  ['explicit VR little endian', 'CT_small.dcm'],
  ['implicit VR little endian', 'MR_small_implicit.dcm'],
  ['explicit VR big endian', 'MR_small_bigendian.dcm'],
  ['deflated', 'image_dfl.dcm'],
  ['JPEG baseline', 'SC_rgb_jpeg_dcmtk.dcm'],
  ['JPEG extended', 'JPEG-lossy.dcm'],
  ['JPEG lossless', 'MR_small_jpeg_ls_lossless.dcm'],
  ['JPEG 2000 lossless', 'MR_small_jp2klossless.dcm'],
  ['JPEG 2000', 'JPEG2000.dcm'],
  ['RLE', 'MR_small_RLE.dcm'],
  ['RLE multi-frame RGB', 'SC_rgb_rle_2frame.dcm'],
] as const;

describe('study thumbnails', () => {
  let ctx: TestContext;
  const users: Array<{ id: string; token: string }> = [];

  beforeAll(async () => {
    ctx = await createTestContext();
  }, 30_000);
  afterAll(async () => {
    await ctx?.close();
  });

  async function newUser(i: number) {
    const data = (await registerPatient(ctx, `thumb${i}@example.com`)).json().data as {
      id: string;
      authToken: string;
    };
    const u = { id: data.id, token: data.authToken };
    users.push(u);
    return u;
  }

  it('shows the middle slice of the largest series', async () => {
    const u = await newUser(0);
    // One study with two series; the 9-slice one (numbered second) must be the one pictured.
    const big = generateSeries({ count: 9, size: 64, seriesNumber: 2 });
    const small = generateSeries({
      count: 2,
      size: 64,
      studyInstanceUid: big.studyInstanceUid,
      seriesNumber: 1,
    });
    const [studyId] = await ingestFiles(
      ctx,
      u.id,
      [...small.files, ...big.files].map((f) => f.bytes),
    );
    const seriesCount = await ctx.app.inject({
      url: `/api/studies/study/${studyId}`,
      headers: { authorization: `Bearer ${u.token}` },
    });
    expect(seriesCount.json().data.seriesCount).toBe(2);
    const res = await ctx.app.inject({
      url: `/api/studies/${studyId}/thumbnail`,
      headers: { authorization: `Bearer ${u.token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    expect(res.headers['cache-control']).toBe('private, max-age=300');
    const { data, info } = await sharp(res.rawPayload)
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(info.width).toBe(256);
    // Slice 5 of 9 (index 4): its square sits in the middle of the image.
    const sq = squareOf(4, 9, 64);
    const scale = 256 / 64;
    const at = (x: number, y: number) => data[Math.round(y * scale) * info.width + Math.round(x * scale)]!;
    expect(at(sq.x + sq.side / 2, sq.y + sq.side / 2)).toBeGreaterThan(200);
    expect(at(2, 2)).toBeLessThan(30);
    const first = squareOf(0, 9, 64);
    expect(at(first.x + 2, first.y + 2)).toBeLessThan(30);
  });

  it.each(RENDERABLE)('renders %s (%s)', async (_label, file) => {
    const u = await newUser(users.length + 1);
    const [studyId] = await ingestFiles(ctx, u.id, [path.join(FIXTURES, file)]);
    const res = await ctx.app.inject({
      url: `/api/studies/${studyId}/thumbnail`,
      headers: { authorization: `Bearer ${u.token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    const stats = await sharp(res.rawPayload).stats();
    // A real picture, not a flat fill.
    expect(Math.max(...stats.channels.map((c) => c.stdev))).toBeGreaterThan(5);
  });

  it('an honest placeholder when nothing can be drawn, and 404 for strangers', async () => {
    const u = await newUser(100);
    const [studyId] = await ingestFiles(ctx, u.id, [path.join(FIXTURES, 'test-SR.dcm')]);
    const res = await ctx.app.inject({
      url: `/api/studies/${studyId}/thumbnail`,
      headers: { authorization: `Bearer ${u.token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('image/svg+xml');
    expect(res.headers['x-thumbnail']).toBe('placeholder');
    expect(res.body).toContain('No preview');
    const stranger = await newUser(101);
    const denied = await ctx.app.inject({
      url: `/api/studies/${studyId}/thumbnail`,
      headers: { authorization: `Bearer ${stranger.token}` },
    });
    expect(denied.statusCode).toBe(404);
  });
});
