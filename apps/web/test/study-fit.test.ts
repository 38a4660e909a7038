import { missingStudyData, missingStudyDataOfListed } from '@mi/contracts/orders';
import { describe, expect, it } from 'vitest';
import { CURRENT_STUDY, rateStudies, type StudyChoice } from '../src/features/orders/utils/study-fit';

const study = (id: string, modality: string | null, uploadedAt: string): StudyChoice => ({
  id,
  description: `Study ${id}`,
  patientName: 'Doe^Jane',
  modality,
  studyDate: '2024-03-01',
  uploadedAt,
});

describe('which studies an order waiting for data can take', () => {
  it('uses the server’s rule: one of the study’s modality codes among the service’s', () => {
    expect(missingStudyData(['X-Ray', 'CT'], { modalities: ['CT', 'SR'] })).toBeNull();
    expect(missingStudyData(['X-Ray', 'CT'], { modalities: ['dx'] })).toBeNull();
    expect(missingStudyData(['X-Ray', 'CT'], { modalities: ['MR'] })).toBe(
      'This service needs a X-Ray, CT study.',
    );
    expect(missingStudyData(['MRI'], { modalities: ['MR'], instanceCount: 0 })).toBe(
      'The study has no images.',
    );
    expect(missingStudyData(['MRI'], null)).toBe('The order has no study.');
    // As the studies list gives them: joined with '/', or none known.
    expect(missingStudyDataOfListed(['CT'], 'SR/CT')).toBeNull();
    expect(missingStudyDataOfListed(['CT'], 'NM')).toBe('This service needs a CT study.');
    expect(missingStudyDataOfListed(['CT'], null)).toBe('This service needs a CT study.');
  });

  it('marks the ones that do not fit and the order’s own study, fitting ones first and newest first', () => {
    const rated = rateStudies(
      [
        study('mr', 'MR', '2025-01-03T00:00:00Z'),
        study('ct-old', 'CT', '2025-01-01T00:00:00Z'),
        study('ct-new', 'CT/SR', '2025-01-02T00:00:00Z'),
        study('none', null, '2025-01-04T00:00:00Z'),
        study('current', 'CT', '2025-01-05T00:00:00Z'),
      ],
      ['X-Ray', 'CT'],
      'current',
    );
    expect(rated.map((s) => [s.id, s.problem])).toEqual([
      ['ct-new', null],
      ['ct-old', null],
      ['current', CURRENT_STUDY],
      ['none', 'This service needs a X-Ray, CT study.'],
      ['mr', 'This service needs a X-Ray, CT study.'],
    ]);
    // The order's own study is told by what it lacks when it lacks something.
    expect(rateStudies([study('mr', 'MR', '2025-01-01T00:00:00Z')], ['CT'], 'mr')[0]!.problem).toBe(
      'This service needs a CT study.',
    );
  });
});
