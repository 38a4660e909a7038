import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type Page } from '@playwright/test';
import { unzipSync } from 'fflate';
import { generateSeries, type GeneratedSeries } from '../../apps/server/test/helpers/dicom-series';

/** Test data and steps shared by the study browser tests. */

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const fixtures = path.resolve(repoRoot, '../shared/fixtures/dicom/pydicom');

export const PASSWORD = 'Str0ng!Passw0rd';
let counter = 0;
export const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${counter++}@example.com`;

export async function registerPatient(page: Page, email: string, first = 'Jane', last = 'Doe') {
  await page.goto('/register/patient');
  await page.getByLabel('First Name').fill(first);
  await page.getByLabel('Last Name').fill(last);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Mobile Phone').fill('+15550100');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm Password').fill(PASSWORD);
  await page.getByLabel('I accept the terms and conditions').check();
  await page.getByRole('button', { name: 'Register' }).click();
  // Registration waits for the proof-of-work captcha, seconds on a busy machine.
  await expect(page.getByText('Medical Imaging v3.0')).toBeVisible({ timeout: 45_000 });
  // A new account is greeted by the onboarding dialog; these tests skip it.
  const welcome = page.getByRole('dialog', { name: 'Welcome to Medical Imaging' });
  await welcome.waitFor({ timeout: 10_000 });
  await welcome.getByRole('button', { name: 'Skip' }).click();
  await expect(welcome).toHaveCount(0);
}

export function tempDir(tag: string): string {
  return mkdtempSync(path.join(tmpdir(), `mi-e2e-${tag}-`));
}

/** Every file under a directory, as paths relative to it. */
export function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? listFiles(path.join(dir, d.name), `${prefix}${d.name}/`) : [`${prefix}${d.name}`],
  );
}

// ---- a minimal DICOM Part 10 writer (explicit VR little endian) ----

type Vr = 'UI' | 'CS' | 'DA' | 'LO' | 'PN' | 'IS' | 'US' | 'UL' | 'OB' | 'SH' | 'TM';
interface Element {
  tag: [number, number];
  vr: Vr;
  value: string | number | Buffer;
}

function encodeValue(vr: Vr, value: string | number | Buffer): Buffer {
  if (Buffer.isBuffer(value)) return value.length % 2 ? Buffer.concat([value, Buffer.alloc(1)]) : value;
  if (vr === 'US') {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(Number(value));
    return b;
  }
  if (vr === 'UL') {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(Number(value));
    return b;
  }
  const text = Buffer.from(String(value), 'utf8');
  if (text.length % 2 === 0) return text;
  return Buffer.concat([text, Buffer.from(vr === 'UI' ? '\0' : ' ')]);
}

function encodeElements(elements: Element[]): Buffer {
  const parts: Buffer[] = [];
  for (const el of [...elements].sort((a, b) => a.tag[0] - b.tag[0] || a.tag[1] - b.tag[1])) {
    const value = encodeValue(el.vr, el.value);
    const long = el.vr === 'OB';
    const head = Buffer.alloc(long ? 12 : 8);
    head.writeUInt16LE(el.tag[0], 0);
    head.writeUInt16LE(el.tag[1], 2);
    head.write(el.vr, 4, 'latin1');
    if (long) head.writeUInt32LE(value.length, 8);
    else head.writeUInt16LE(value.length, 6);
    parts.push(head, value);
  }
  return Buffer.concat(parts);
}

export const newUid = () => `2.25.${BigInt(`0x${randomUUID().replace(/-/g, '')}`).toString()}`;

export interface InstanceSpec {
  patientName: string;
  patientId?: string;
  studyDescription: string;
  modality: string;
  /** YYYYMMDD */
  studyDate: string;
  studyUid: string;
  seriesUid: string;
  instanceNumber: number;
  /** Bytes of 8-bit pixel data (a square image of about this size). */
  pixelBytes?: number;
}

/** A valid secondary-capture instance with UTF-8 text and random 8-bit pixels. */
export function dicomInstance(spec: InstanceSpec): Buffer {
  const sopClass = '1.2.840.10008.5.1.4.1.1.7';
  const sopUid = newUid();
  const side = Math.max(8, Math.floor(Math.sqrt(spec.pixelBytes ?? 4096)));
  const meta = encodeElements([
    { tag: [0x0002, 0x0001], vr: 'OB', value: Buffer.from([0, 1]) },
    { tag: [0x0002, 0x0002], vr: 'UI', value: sopClass },
    { tag: [0x0002, 0x0003], vr: 'UI', value: sopUid },
    { tag: [0x0002, 0x0010], vr: 'UI', value: '1.2.840.10008.1.2.1' },
    { tag: [0x0002, 0x0012], vr: 'UI', value: '1.2.826.0.1.3680043.10.1' },
  ]);
  const groupLength = encodeElements([{ tag: [0x0002, 0x0000], vr: 'UL', value: meta.length }]);
  const body = encodeElements([
    { tag: [0x0008, 0x0005], vr: 'CS', value: 'ISO_IR 192' },
    { tag: [0x0008, 0x0016], vr: 'UI', value: sopClass },
    { tag: [0x0008, 0x0018], vr: 'UI', value: sopUid },
    { tag: [0x0008, 0x0020], vr: 'DA', value: spec.studyDate },
    { tag: [0x0008, 0x0030], vr: 'TM', value: '101500' },
    { tag: [0x0008, 0x0060], vr: 'CS', value: spec.modality },
    { tag: [0x0008, 0x1030], vr: 'LO', value: spec.studyDescription },
    { tag: [0x0010, 0x0010], vr: 'PN', value: spec.patientName },
    { tag: [0x0010, 0x0020], vr: 'LO', value: spec.patientId ?? 'PID-1' },
    { tag: [0x0020, 0x000d], vr: 'UI', value: spec.studyUid },
    { tag: [0x0020, 0x000e], vr: 'UI', value: spec.seriesUid },
    { tag: [0x0020, 0x0013], vr: 'IS', value: String(spec.instanceNumber) },
    { tag: [0x0028, 0x0002], vr: 'US', value: 1 },
    { tag: [0x0028, 0x0004], vr: 'CS', value: 'MONOCHROME2' },
    { tag: [0x0028, 0x0010], vr: 'US', value: side },
    { tag: [0x0028, 0x0011], vr: 'US', value: side },
    { tag: [0x0028, 0x0100], vr: 'US', value: 8 },
    { tag: [0x0028, 0x0101], vr: 'US', value: 8 },
    { tag: [0x0028, 0x0102], vr: 'US', value: 7 },
    { tag: [0x0028, 0x0103], vr: 'US', value: 0 },
    { tag: [0x7fe0, 0x0010], vr: 'OB', value: randomBytes(side * side) },
  ]);
  return Buffer.concat([Buffer.alloc(128), Buffer.from('DICM', 'latin1'), groupLength, meta, body]);
}

/** Writes a series of generated instances into `dir/sub` and returns their paths. */
export function writeSeries(
  dir: string,
  sub: string,
  count: number,
  spec: Omit<InstanceSpec, 'instanceNumber' | 'seriesUid'> & { seriesUid?: string },
): string[] {
  const seriesUid = spec.seriesUid ?? newUid();
  mkdirSync(path.join(dir, sub), { recursive: true });
  return Array.from({ length: count }, (_, i) => {
    const file = path.join(dir, sub, `IM${String(i + 1).padStart(4, '0')}.dcm`);
    writeFileSync(file, dicomInstance({ ...spec, seriesUid, instanceNumber: i + 1 }));
    return file;
  });
}

// ---- page steps ----

/**
 * Generates a series whose slices each carry a known shape (drawable in the viewer), writes it to a
 * folder of its own and uploads it from the Upload page, back on My Studies once it is sent.
 */
export async function uploadGeneratedSeries(
  page: Page,
  tag: string,
  opts: { count: number; size?: number; patientName?: string; description?: string },
): Promise<GeneratedSeries> {
  const dir = tempDir(tag);
  const series = generateSeries({ size: 128, ...opts });
  const files = series.files.map((f, i) => {
    const file = path.join(dir, `IM${String(i + 1).padStart(4, '0')}.dcm`);
    writeFileSync(file, f.bytes);
    return file;
  });
  await page.goto('/upload?backUrl=/studies');
  await pickFromTile(page, 'Select Files', files);
  await uploadAndReturnToStudies(page);
  return series;
}

/** Clicks a source tile and answers the browser's file picker with `files` (paths or one directory). */
export async function pickFromTile(
  page: Page,
  tile: 'Select Files' | 'Select Folder' | 'Upload ZIP' | 'CD/DVD',
  files: string | string[],
) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: tile }).click();
  await (await chooser).setFiles(files);
}

/** Upload Files, the progress dialog until 'Upload complete', then Back To Studies. */
export async function uploadAndReturnToStudies(page: Page) {
  await page.getByRole('button', { name: 'Upload Files' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: 'Upload complete' })).toBeVisible({ timeout: 60_000 });
  await expect(dialog).toContainText(
    'Your files have been uploaded successfully and your study is being processed. You will be notified once the processing is complete.',
  );
  await dialog.getByRole('button', { name: 'Back To Studies' }).click();
  await expect(page).toHaveURL(/\/studies$/);
}

/**
 * The study whose entry contains `text`, once processing has listed it: its row of the studies
 * table, or its card on a screen narrower than the table (My Studies, Shared Studies).
 */
export function studyRow(page: Page, text: string) {
  return page
    .getByRole('row')
    .filter({ hasText: text })
    .or(
      page
        .getByRole('list', { name: /^(My studies|Studies shared with you)$/ })
        .getByRole('listitem')
        .filter({ hasText: text }),
    );
}

/** The entries of a ZIP file by name. */
export function zipEntries(file: string): Map<string, Buffer> {
  const entries = unzipSync(new Uint8Array(readFileSync(file)));
  return new Map(Object.entries(entries).map(([name, data]) => [name, Buffer.from(data)]));
}

/** SHA-256 of each buffer, sorted: compares collections of files regardless of their names. */
export function digests(buffers: Iterable<Buffer>): string[] {
  return [...buffers].map((b) => createHash('sha256').update(b).digest('hex')).sort();
}

export function fileSize(file: string): number {
  return statSync(file).size;
}
