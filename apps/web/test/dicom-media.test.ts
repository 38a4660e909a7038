import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasDicmPreamble, selectDicomMediaFiles } from '../src/features/upload/utils/dicom-media';

const fixtures = path.resolve(import.meta.dirname, '../../../../shared/fixtures/dicom/pydicom/dicomdirtests');

/** A File as a folder pick gives it: with the path relative to the picked folder. */
function picked(relative: string, bytes: Uint8Array): File {
  const file = new File([new Uint8Array(bytes)], path.basename(relative));
  Object.defineProperty(file, 'webkitRelativePath', { value: relative });
  return file;
}

function pickFolder(dir: string, root = path.basename(dir)): File[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory()
      ? pickFolder(full, `${root}/${name}`)
      : [picked(`${root}/${name}`, readFileSync(full))];
  });
}

describe('CD/DVD selection', () => {
  it('recognises the DICM preamble at bytes 128-131 only', async () => {
    const dicm = new Uint8Array(200);
    dicm.set([0x44, 0x49, 0x43, 0x4d], 128);
    expect(await hasDicmPreamble(new Blob([dicm]))).toBe(true);
    const early = new Uint8Array(200);
    early.set([0x44, 0x49, 0x43, 0x4d], 0);
    expect(await hasDicmPreamble(new Blob([early]))).toBe(false);
    expect(await hasDicmPreamble(new Blob([dicm.subarray(0, 131)]))).toBe(false);
  });

  it('keeps the DICOM files of a disc and leaves the rest behind', async () => {
    const files = pickFolder(path.join(fixtures, 'TINY_ALPHA'));
    const kept = await selectDicomMediaFiles(files);
    const names = kept.map((f) => f.webkitRelativePath);
    expect(kept).toHaveLength(51);
    expect(names).toContain('TINY_ALPHA/DICOMDIR');
    expect(names.some((n) => n.endsWith('README'))).toBe(false);
  });

  it('adds files the DICOMDIR references even without the preamble, matching names as a disc does', async () => {
    const files = pickFolder(path.join(fixtures, 'TINY_ALPHA'));
    // Some discs store instances without the 128-byte preamble, in lower case, with ';1' versions.
    const original = readFileSync(path.join(fixtures, 'TINY_ALPHA/PT000000/ST000000/SE000000/IM000003'));
    const referencedOnly = picked('tiny_alpha/pt000000/st000000/se000000/im000003;1', original.subarray(132));
    const stripped = files.map((f) => (f.webkitRelativePath.endsWith('/IM000003') ? referencedOnly : f));
    expect(await hasDicmPreamble(referencedOnly)).toBe(false);
    const kept = await selectDicomMediaFiles(stripped);
    expect(kept).toContain(referencedOnly);
    expect(kept).toHaveLength(51);

    // Without the DICOMDIR the same file is not recognisable and stays behind.
    const withoutDir = stripped.filter((f) => !f.webkitRelativePath.endsWith('DICOMDIR'));
    const keptWithoutDir = await selectDicomMediaFiles(withoutDir);
    expect(keptWithoutDir).not.toContain(referencedOnly);
    expect(keptWithoutDir).toHaveLength(49);
  });

  it('survives a malformed DICOMDIR by falling back to the preamble check', async () => {
    const files = pickFolder(path.join(fixtures, '98892001'));
    const broken = picked(
      '98892001/DICOMDIR',
      readFileSync(path.join(fixtures, 'DICOMDIR-nooffset')).subarray(0, 600),
    );
    const kept = await selectDicomMediaFiles([...files, broken]);
    expect(kept).toHaveLength(files.length + 1);
  });
});
