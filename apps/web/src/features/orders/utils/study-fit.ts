import { missingStudyDataOfListed } from '@mi/contracts/orders';

/** One of the user's studies as the attach dialog lists it (from the studies list the app loads). */
export interface StudyChoice {
  id: string;
  description: string | null;
  patientName: string | null;
  /** Modalities joined with '/', as the studies list gives them ('CT', 'CT/SR'). */
  modality: string | null;
  studyDate: string | null;
  uploadedAt: string;
}

export interface RatedStudy extends StudyChoice {
  /** Why it cannot be attached, or null when it fits. */
  problem: string | null;
}

export const CURRENT_STUDY = 'The order already has this study.';

/**
 * Marks each study that does not fit the service (the server's rule, missingStudyData), and the
 * order's own study whatever it holds; the ones that fit come first, newest upload first within each group. The server
 * checks again when a study is attached.
 */
export function rateStudies(
  studies: readonly StudyChoice[],
  supportedModalities: readonly string[],
  currentStudyId: string | null,
): RatedStudy[] {
  return studies
    .map((s) => ({
      ...s,
      problem:
        missingStudyDataOfListed(supportedModalities, s.modality) ??
        (s.id === currentStudyId ? CURRENT_STUDY : null),
    }))
    .sort(
      (a, b) =>
        Number(a.problem !== null) - Number(b.problem !== null) || b.uploadedAt.localeCompare(a.uploadedAt),
    );
}
