import type { StudyListItem } from '@mi/contracts/studies';
import { endOfDay, isValid, parseISO, startOfDay } from 'date-fns';
import { getAnalysisPath, paths, studyTransferPath, withQuery } from '@/config/paths';
import { foldText as fold, type SortState } from '@/components/list/sort';
import { formatPersonName } from '@/lib/format';

/** The Studies list's sortable columns. */
export type StudySortKey =
  'id' | 'patientName' | 'type' | 'uploadDate' | 'studyDate' | 'latestCompletionDate';
export type StudySort = SortState<StudySortKey>;

/** Default sort: newest upload first. */
export const DEFAULT_SORT: StudySort = { key: 'uploadDate', dir: 'desc' };

/** The Studies list's filter. `modality` is 'all' or one modality. */
export interface StudyFilter {
  search: string;
  modality: string;
  newOnly: boolean;
  date: { from?: Date; to?: Date };
}

export const EMPTY_FILTER: StudyFilter = { search: '', modality: 'all', newOnly: false, date: {} };

function time(value: string | null | undefined): number {
  if (!value) return 0;
  const date = parseISO(value);
  return isValid(date) ? date.getTime() : 0;
}

/**
 * What sorting and filtering read of a study, worked out once per study object (the list's query
 * data is never changed in place), so that a sort or a keystroke in the search over thousands of
 * studies neither parses dates nor folds names again.
 */
interface Derived {
  uploaded?: number;
  studyDate?: number;
  completed?: number;
  /** The patient name as shown, and its sort key (lower case). */
  name?: string;
  nameKey?: string;
  /** The shown name and the name's groups, folded: what the search looks in for a name. */
  nameFolded?: string;
  /** Description, id and modality, folded (missing ones left out). */
  fieldsFolded?: string[];
  modalities?: string[];
}
const derivedOf = new WeakMap<StudyListItem, Derived>();
function derived(study: StudyListItem): Derived {
  let d = derivedOf.get(study);
  if (!d) derivedOf.set(study, (d = {}));
  return d;
}

function uploadTime(study: StudyListItem): number {
  const d = derived(study);
  return (d.uploaded ??= time(study.createdAt));
}

/** A study without a date counts as the epoch. */
function studyDateTime(study: StudyListItem): number {
  const d = derived(study);
  return (d.studyDate ??= time(study.metadata.studyDate));
}

/** The patient name as the list shows it ('DOE, JOHN' for the DICOM 'DOE^JOHN'). */
export function patientDisplayName(study: StudyListItem): string {
  const d = derived(study);
  return (d.name ??= formatPersonName(study.metadata.patientName));
}

function foldedName(study: StudyListItem): string {
  const d = derived(study);
  return (d.nameFolded ??= fold(
    `${patientDisplayName(study)} ${(study.metadata.patientName ?? '').replace(/[\^=]/g, ' ')}`,
  ));
}

function foldedFields(study: StudyListItem): string[] {
  const d = derived(study);
  return (d.fieldsFolded ??= [study.metadata.studyDescription, study.id, study.metadata.modality]
    .filter((value): value is string => Boolean(value))
    .map(fold));
}

/** The search as a test of one study (the search text folded once, not once per study). */
function searchTest(search: string): ((study: StudyListItem) => boolean) | null {
  const needle = fold(search.trim());
  if (!needle) return null;
  const words = needle.split(/[\s,^]+/).filter(Boolean);
  return (study) => {
    const name = foldedName(study);
    if (name.includes(needle) || foldedFields(study).some((value) => value.includes(needle))) return true;
    return words.length > 1 && words.every((word) => name.includes(word));
  };
}

/**
 * Search: substring on description, id, modality or patient name (any case, any accents). The name
 * matches in its shown form or in any of its groups (the phonetic one too), and also when every word
 * of the search is in it ('john doe' finds 'DOE, JOHN').
 */
export function matchesSearch(study: StudyListItem, search: string): boolean {
  return searchTest(search)?.(study) ?? true;
}

/** The study's modalities, upper case: the list joins them with '/' ('CT/SR' is CT and SR). */
function modalitiesOf(study: StudyListItem): string[] {
  const d = derived(study);
  return (d.modalities ??= (study.metadata.modality ?? '')
    .split('/')
    .map((m) => m.trim().toUpperCase())
    .filter(Boolean));
}

/**
 * Modality filter by equality (any case); 'all' keeps everything. A study of several
 * modalities (CT and SR) is kept for each of them.
 */
export function matchesModality(study: StudyListItem, modality: string): boolean {
  if (modality === 'all') return true;
  return modalitiesOf(study).includes(modality.toUpperCase());
}

export function filterStudies(studies: readonly StudyListItem[], filter: StudyFilter): StudyListItem[] {
  const from = filter.date.from ? startOfDay(filter.date.from).getTime() : -Infinity;
  const to = filter.date.to ? endOfDay(filter.date.to).getTime() : Infinity;
  const dated = Boolean(filter.date.from || filter.date.to);
  const search = searchTest(filter.search);
  return studies.filter((study) => {
    if ((search && !search(study)) || !matchesModality(study, filter.modality)) return false;
    if (dated) {
      const at = studyDateTime(study);
      if (at < from || at > to) return false;
    }
    return !filter.newOnly || study.status.process.value === 'completed';
  });
}

/** The distinct single modalities of the list, upper case and sorted (a CT/SR study gives CT and SR). */
export function distinctModalities(studies: readonly StudyListItem[]): string[] {
  const set = new Set<string>();
  for (const s of studies) for (const m of modalitiesOf(s)) set.add(m);
  return [...set].sort((a, b) => a.localeCompare(b));
}

function sortValue(study: StudyListItem, key: StudySortKey): string | number {
  switch (key) {
    // The first column shows the description; sorting it by its text is what a user expects.
    case 'id':
      return (study.metadata.studyDescription ?? '').toLowerCase();
    case 'patientName': {
      const d = derived(study);
      return (d.nameKey ??= patientDisplayName(study).toLowerCase());
    }
    case 'type':
      return (study.metadata.modality ?? '').toLowerCase();
    case 'uploadDate':
      return uploadTime(study);
    case 'studyDate':
      return studyDateTime(study);
    case 'latestCompletionDate': {
      const d = derived(study);
      return (d.completed ??= time(study.latestCompletionDate));
    }
  }
}

/** What `localeCompare` does with no locale or options, made once rather than per comparison. */
const collator = new Intl.Collator();

export function sortStudies(studies: readonly StudyListItem[], sort: StudySort): StudyListItem[] {
  const factor = sort.dir === 'asc' ? 1 : -1;
  // Each study's sort value and upload time read once, not twice per comparison.
  const keyed = studies.map((study) => ({
    study,
    value: sortValue(study, sort.key),
    uploaded: uploadTime(study),
  }));
  keyed.sort((a, b) => {
    const order =
      typeof a.value === 'number' && typeof b.value === 'number'
        ? a.value - b.value
        : collator.compare(String(a.value), String(b.value));
    // Ties keep a stable, newest-first order.
    return order * factor || b.uploaded - a.uploaded;
  });
  return keyed.map((k) => k.study);
}

/** The 'Get Analysis' target; study name and patient name URL-encoded, 'N/A' when missing. */
export function analysisHref(study: StudyListItem): string {
  return getAnalysisPath({
    studyId: study.id,
    studyName: study.metadata.studyDescription || 'N/A',
    patientName: patientDisplayName(study) || 'N/A',
  });
}

/** The Analysis services page for a study: order an analysis of it, paid on /billing. */
export function analysisServicesHref(study: StudyListItem): string {
  return withQuery(paths.analysisServices, { studyId: study.id });
}

/** The Healthcare Providers page in share mode: pick one of one's providers to share the study with. */
export function shareWithProviderHref(study: StudyListItem): string {
  return withQuery(paths.providers, { studyId: study.id });
}

/** The viewer preparation page of a study. */
export function viewerHref(study: StudyListItem): string {
  return studyTransferPath(study.id);
}
