import { humanize } from '@mi/contracts/orders';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/lib/api-client';
import { studyErrorText } from '../src/features/services/utils/study-error';
import { compareTurnaround, turnaroundMinutes } from '../src/features/services/utils/turnaround';

describe('Turnaround Time', () => {
  it('reads ranges and single durations in minutes', () => {
    expect(turnaroundMinutes('5-10 minutes')).toBe(7.5);
    expect(turnaroundMinutes('24-48 hours')).toBe(36 * 60);
    expect(turnaroundMinutes('2-3 days')).toBe(2.5 * 24 * 60);
    expect(turnaroundMinutes('1 week')).toBe(7 * 24 * 60);
    expect(turnaroundMinutes('48 hours')).toBe(48 * 60);
    expect(turnaroundMinutes('3–5 business days')).toBe(4 * 24 * 60);
    expect(turnaroundMinutes('soon')).toBe(Infinity);
  });

  it('sorts by duration, not by text; unreadable ones last', () => {
    const times = ['2-3 days', 'on request', '24-48 hours', '5-10 minutes', '12 hours'];
    expect([...times].sort(compareTurnaround)).toEqual([
      '5-10 minutes',
      '12 hours',
      '24-48 hours',
      '2-3 days',
      'on request',
    ]);
  });
});

describe('scope and status labels', () => {
  it('keep acronyms in capitals', () => {
    expect(humanize('ai_analysis')).toBe('AI Analysis');
    expect(humanize('ct_mri_review')).toBe('CT MRI Review');
    expect(humanize('expert_review')).toBe('Expert Review');
    expect(humanize('pending_approval')).toBe('Pending Approval');
  });
});

describe('the Analysis services page when its study cannot be read', () => {
  it('says not found for a missing or malformed study, and the error otherwise', () => {
    expect(studyErrorText(new ApiError(404, '404: Not found', 'Study not found', 'NOT_FOUND'))).toBe(
      'Study not found or invalid study ID.',
    );
    // Told by the code, whatever the words: a malformed id is not found too.
    expect(studyErrorText(new ApiError(400, '400: bad', 'studyId: Invalid uuid', 'VALIDATION_ERROR'))).toBe(
      'Study not found or invalid study ID.',
    );
    // A 404 page from something in between (no code) is an error loading the study.
    expect(studyErrorText(new ApiError(404, '404: <html>', undefined, undefined))).toBe(
      'Error loading study: 404: <html>',
    );
    expect(
      studyErrorText(
        new ApiError(0, 'Network error: the server could not be reached.', undefined, undefined),
      ),
    ).toBe('Error loading study: Network error: the server could not be reached.');
    expect(studyErrorText(new ApiError(500, '500: Internal Server Error', undefined, undefined))).toBe(
      'Error loading study: 500: Internal Server Error',
    );
  });
});
