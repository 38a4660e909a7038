import type { StudyListItem } from '@mi/contracts/studies';
import { endOfDay, isValid, parseISO, startOfDay } from 'date-fns';

/** Spec §2 sortable keys. */
export type StudySortKey =
  'id' | 'patientName' | 'type' | 'uploadDate' | 'studyDate' | 'latestCompletionDate';
export type SortDirection = 'asc' | 'desc';
export interface StudySort {
  key: StudySortKey;
  direction: SortDirection;
}

/** Spec §9 default sort. */
export const DEFAULT_SORT: StudySort = { key: 'uploadDate', direction: 'desc' };

/** Spec §2: the same column toggles its direction; a new column starts ascending. */
export function nextSort(current: StudySort, key: StudySortKey): StudySort {
  if (current.key === key) return { key, direction: current.direction === 'asc' ? 'desc' : 'asc' };
  return { key, direction: 'asc' };
}

/** Spec §3 Study filter. `modality` is 'all' or one modality. */
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

/** Spec §5: a study without a date counts as the epoch. */
function studyDateTime(study: StudyListItem): number {
  return time(study.metadata.studyDate);
}

/** Spec §5: substring on description, id, modality or patient name (any case). */
export function matchesSearch(study: StudyListItem, search: string): boolean {
  const needle = search.trim().toLowerCase();
  if (!needle) return true;
  return [
    study.metadata.studyDescription,
    study.id,
    study.metadata.modality,
    study.metadata.patientName,
  ].some((value) => value?.toLowerCase().includes(needle));
}

/** Spec §5: modality filter by equality (any case); 'all' keeps everything. */
export function matchesModality(study: StudyListItem, modality: string): boolean {
  if (modality === 'all') return true;
  return (study.metadata.modality ?? '').toLowerCase() === modality.toLowerCase();
}

export function filterStudies(studies: readonly StudyListItem[], filter: StudyFilter): StudyListItem[] {
  const from = filter.date.from ? startOfDay(filter.date.from).getTime() : -Infinity;
  const to = filter.date.to ? endOfDay(filter.date.to).getTime() : Infinity;
  return studies.filter((study) => {
    if (!matchesSearch(study, filter.search) || !matchesModality(study, filter.modality)) return false;
    if (filter.date.from || filter.date.to) {
      const at = studyDateTime(study);
      if (at < from || at > to) return false;
    }
    return !filter.newOnly || study.status.process.value === 'completed';
  });
}

/** The distinct modalities of the list (one entry per spelling in any case), sorted. */
export function distinctModalities(studies: readonly StudyListItem[]): string[] {
  const set = new Set<string>();
  for (const s of studies) if (s.metadata.modality) set.add(s.metadata.modality.toUpperCase());
  return [...set].sort((a, b) => a.localeCompare(b));
}

function sortValue(study: StudyListItem, key: StudySortKey): string | number {
  switch (key) {
    // The first column shows the description; sorting it by its text is what a user expects.
    case 'id':
      return (study.metadata.studyDescription ?? '').toLowerCase();
    case 'patientName':
      return (study.metadata.patientName ?? '').toLowerCase();
    case 'type':
      return (study.metadata.modality ?? '').toLowerCase();
    case 'uploadDate':
      return time(study.createdAt);
    case 'studyDate':
      return studyDateTime(study);
    case 'latestCompletionDate':
      return time(study.latestCompletionDate);
  }
}

export function sortStudies(studies: readonly StudyListItem[], sort: StudySort): StudyListItem[] {
  const factor = sort.direction === 'asc' ? 1 : -1;
  return [...studies].sort((a, b) => {
    const va = sortValue(a, sort.key);
    const vb = sortValue(b, sort.key);
    const order =
      typeof va === 'number' && typeof vb === 'number' ? va - vb : String(va).localeCompare(String(vb));
    // Ties keep a stable, newest-first order.
    return order * factor || time(b.createdAt) - time(a.createdAt);
  });
}

/** Spec §2: Get Analysis target; study name and patient name URL-encoded, 'N/A' when missing. */
export function analysisHref(study: StudyListItem): string {
  const studyName = encodeURIComponent(study.metadata.studyDescription || 'N/A');
  const patientName = encodeURIComponent(study.metadata.patientName || 'N/A');
  return `/services/available?action=getanalysis&studyId=${encodeURIComponent(study.id)}&studyName=${studyName}&patientName=${patientName}`;
}

/** Spec §2: the viewer preparation page of a study. */
export function viewerHref(study: StudyListItem): string {
  return `/studies/transfer/${encodeURIComponent(study.id)}`;
}
