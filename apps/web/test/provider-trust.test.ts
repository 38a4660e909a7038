import { describe, expect, it } from 'vitest';
import {
  compareRatings,
  providerKindLabel,
  ratingText,
  specialtyLabel,
  verifiedText,
} from '../src/components/provider-trust';

describe('provider trust texts', () => {
  it("reads a rating with its count, or 'No ratings yet'", () => {
    expect(ratingText(4.7, 23)).toBe('4.7/5 · 23 ratings');
    expect(ratingText(5, 1)).toBe('5.0/5 · 1 rating');
    expect(ratingText(null, 0)).toBe('No ratings yet');
    expect(ratingText(null, 3)).toBe('No ratings yet');
  });

  it('sorts the best rated first and the unrated last, whichever the direction', () => {
    const a = { id: 'a', rating: 4.2, ratingCount: 5 };
    const b = { id: 'b', rating: null, ratingCount: 0 };
    const c = { id: 'c', rating: 4.9, ratingCount: 2 };
    const d = { id: 'd', rating: 4.2, ratingCount: 9 };
    expect([a, b, c, d].sort((x, y) => compareRatings(x, y)).map((p) => p.id)).toEqual(['c', 'd', 'a', 'b']);
    expect([a, b, c, d].sort((x, y) => compareRatings(x, y, 'asc')).map((p) => p.id)).toEqual([
      'd',
      'a',
      'c',
      'b',
    ]);
  });

  it('names the licence state and the date of verification', () => {
    expect(verifiedText({ licenseState: 'CA', verifiedAt: '2026-03-12T10:00:00.000Z' })).toBe(
      'Verified · licensed in CA · since Mar 12, 2026',
    );
  });

  it('labels the kinds, and leaves out a specialty that only repeats the kind', () => {
    expect(providerKindLabel('automated')).toBe('Automated analysis');
    expect(providerKindLabel('organisation')).toBe('Organisation');
    expect(specialtyLabel({ specialty: 'Automated analysis', kind: 'automated' })).toBeNull();
    expect(specialtyLabel({ specialty: 'Radiology', kind: 'professional' })).toBe('Radiology');
    expect(specialtyLabel({ specialty: null, kind: 'organisation' })).toBeNull();
  });
});
