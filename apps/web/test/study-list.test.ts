import type { StudyListItem } from '@mi/contracts/studies';
import { describe, expect, it } from 'vitest';
import {
  analysisHref,
  DEFAULT_SORT,
  distinctModalities,
  EMPTY_FILTER,
  filterStudies,
  sortStudies,
} from '../src/features/studies/utils/study-list';
import { nextSort } from '../src/components/list/sort';

function study(
  id: string,
  over: Partial<StudyListItem['metadata']> & { createdAt?: string; process?: string } = {},
): StudyListItem {
  const { createdAt = '2024-01-01T10:00:00Z', process = 'completed', ...metadata } = over;
  return {
    _id: id,
    id,
    studyId: `1.2.${id}`,
    createdAt,
    status: { process: { value: process as 'completed', reason: null }, transfer: { value: null } },
    metadata: {
      studyDescription: null,
      location: null,
      patientName: null,
      modality: null,
      studyDate: null,
      ...metadata,
    },
    latestCompletionDate: null,
  };
}

const a = study('a', {
  patientName: 'Zed^Anna',
  modality: 'CT',
  studyDescription: 'Chest',
  studyDate: '2020-05-01',
  createdAt: '2024-03-01T00:00:00Z',
});
const b = study('b', {
  patientName: 'adams^bob',
  modality: 'MR',
  studyDescription: 'Brain',
  studyDate: '2021-01-10',
  createdAt: '2024-01-01T00:00:00Z',
});
const c = study('c', {
  patientName: null,
  modality: 'ct',
  studyDescription: null,
  studyDate: null,
  createdAt: '2024-02-01T00:00:00Z',
});
const ids = (list: StudyListItem[]) => list.map((s) => s.id);

describe('studies list sorting, search and filters', () => {
  it('sorts by upload date, newest first, by default', () => {
    expect(DEFAULT_SORT).toEqual({ key: 'uploadDate', dir: 'desc' });
    expect(ids(sortStudies([a, b, c], DEFAULT_SORT))).toEqual(['a', 'c', 'b']);
  });

  it('toggles the same column and starts a new column ascending', () => {
    expect(nextSort(DEFAULT_SORT, 'uploadDate')).toEqual({ key: 'uploadDate', dir: 'asc' });
    expect(nextSort({ key: 'uploadDate', dir: 'asc' }, 'uploadDate')).toEqual({
      key: 'uploadDate',
      dir: 'desc',
    });
    expect(nextSort(DEFAULT_SORT, 'patientName')).toEqual({ key: 'patientName', dir: 'asc' });
  });

  it('sorts names without regard to case and missing dates as the epoch', () => {
    expect(ids(sortStudies([a, b, c], { key: 'patientName', dir: 'asc' }))).toEqual(['c', 'b', 'a']);
    expect(ids(sortStudies([a, b, c], { key: 'studyDate', dir: 'asc' }))).toEqual(['c', 'a', 'b']);
    expect(ids(sortStudies([a, b, c], { key: 'studyDate', dir: 'desc' }))).toEqual(['b', 'a', 'c']);
  });

  it('searches description, id, modality and patient name in any case', () => {
    expect(ids(filterStudies([a, b, c], { ...EMPTY_FILTER, search: 'ADAMS' }))).toEqual(['b']);
    expect(ids(filterStudies([a, b, c], { ...EMPTY_FILTER, search: 'chest' }))).toEqual(['a']);
    expect(ids(filterStudies([a, b, c], { ...EMPTY_FILTER, search: 'c' }))).toEqual(['a', 'c']);
  });

  it('filters one modality by equality in any case', () => {
    expect(ids(filterStudies([a, b, c], { ...EMPTY_FILTER, modality: 'CT' }))).toEqual(['a', 'c']);
    expect(distinctModalities([a, b, c])).toEqual(['CT', 'MR']);
  });

  it('offers single modalities and keeps a study of several modalities under each of them', () => {
    const mixed = study('m', { modality: 'CT/SR' });
    expect(distinctModalities([a, b, mixed])).toEqual(['CT', 'MR', 'SR']);
    expect(ids(filterStudies([a, b, mixed], { ...EMPTY_FILTER, modality: 'CT' }))).toEqual(['a', 'm']);
    expect(ids(filterStudies([a, b, mixed], { ...EMPTY_FILTER, modality: 'sr' }))).toEqual(['m']);
    expect(ids(filterStudies([a, b, mixed], { ...EMPTY_FILTER, modality: 'C' }))).toEqual([]);
  });

  it('finds a patient by the name as shown, or by its words in any order', () => {
    expect(ids(filterStudies([a, b, c], { ...EMPTY_FILTER, search: 'zed, anna' }))).toEqual(['a']);
    expect(ids(filterStudies([a, b, c], { ...EMPTY_FILTER, search: 'Anna Zed' }))).toEqual(['a']);
    expect(ids(filterStudies([a, b, c], { ...EMPTY_FILTER, search: 'Bob Zed' }))).toEqual([]);
  });

  it('finds names without regard to accents, and by their phonetic group', () => {
    const buc = study('buc', { patientName: 'Buc^Jérôme', studyDescription: 'Épaule' });
    const yamada = study('yam', { patientName: 'Yamada^Tarou=山田^太郎=やまだ^たろう' });
    expect(ids(filterStudies([a, buc, yamada], { ...EMPTY_FILTER, search: 'jerome' }))).toEqual(['buc']);
    expect(ids(filterStudies([a, buc, yamada], { ...EMPTY_FILTER, search: 'Jérôme Buc' }))).toEqual(['buc']);
    expect(ids(filterStudies([a, buc, yamada], { ...EMPTY_FILTER, search: 'epaule' }))).toEqual(['buc']);
    expect(ids(filterStudies([a, buc, yamada], { ...EMPTY_FILTER, search: 'やまだ' }))).toEqual(['yam']);
    expect(ids(filterStudies([a, buc, yamada], { ...EMPTY_FILTER, search: '山田' }))).toEqual(['yam']);
  });

  it('keeps study dates inside the range, whole days included, a missing date counting as the epoch', () => {
    const range = { from: new Date(2020, 4, 1), to: new Date(2021, 0, 10) };
    expect(ids(filterStudies([a, b, c], { ...EMPTY_FILTER, date: range }))).toEqual(['a', 'b']);
    const epoch = { from: new Date(1969, 11, 1), to: new Date(1970, 0, 2) };
    expect(ids(filterStudies([a, b, c], { ...EMPTY_FILTER, date: epoch }))).toEqual(['c']);
  });

  it('newOnly keeps completed studies only', () => {
    const failed = study('d', { process: 'failed' });
    expect(ids(filterStudies([a, failed], { ...EMPTY_FILTER, newOnly: true }))).toEqual(['a']);
  });

  it('builds the Get Analysis link with encoded names and N/A defaults', () => {
    expect(analysisHref(a)).toBe(
      '/services/available?action=getanalysis&studyId=a&studyName=Chest&patientName=Zed%2C%20Anna',
    );
    expect(analysisHref(c)).toBe(
      '/services/available?action=getanalysis&studyId=c&studyName=N%2FA&patientName=N%2FA',
    );
  });
});
