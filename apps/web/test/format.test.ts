import { describe, expect, it } from 'vitest';
import { formatPersonName } from '../src/lib/format';

describe('formatPersonName (DICOM PN for display)', () => {
  it('writes the family name first, then the other components', () => {
    expect(formatPersonName('DOE^JOHN')).toBe('DOE, JOHN');
    expect(formatPersonName('Doe^John^Albert^Dr^Jr')).toBe('Doe, Dr John Albert Jr');
    expect(formatPersonName('Buc^Jérôme')).toBe('Buc, Jérôme');
  });

  it('drops empty components and trailing carets', () => {
    expect(formatPersonName('DOE^^^^')).toBe('DOE');
    expect(formatPersonName('^JOHN')).toBe('JOHN');
    expect(formatPersonName('DOE^ JOHN ')).toBe('DOE, JOHN');
  });

  it('shows a name without carets as it is, and nothing for no name', () => {
    expect(formatPersonName('Διονυσιος')).toBe('Διονυσιος');
    expect(formatPersonName('John Doe')).toBe('John Doe');
    expect(formatPersonName('')).toBe('');
    expect(formatPersonName(null)).toBe('');
    expect(formatPersonName('^^^')).toBe('');
  });

  it('keeps text with more than three groups whole rather than splitting it at every =', () => {
    expect(formatPersonName('<img src=x onerror="a=1">Evil^Name')).toBe(
      '<img src=x onerror="a=1">Evil, Name',
    );
  });

  it('adds the ideographic group in brackets, family name first without a comma', () => {
    expect(formatPersonName('Yamada^Tarou=山田^太郎=やまだ^たろう')).toBe('Yamada, Tarou (山田 太郎)');
    expect(formatPersonName('Hong^Gildong=洪^吉洞=홍^길동')).toBe('Hong, Gildong (洪 吉洞)');
  });

  it('falls back to the ideographic, then the phonetic group', () => {
    expect(formatPersonName('=山田^太郎=やまだ^たろう')).toBe('山田 太郎');
    expect(formatPersonName('==やまだ^たろう')).toBe('やまだ たろう');
    expect(formatPersonName('やまだ^たろう')).toBe('やまだ たろう');
    expect(formatPersonName('ﾔﾏﾀﾞ^ﾀﾛｳ=山田^太郎=やまだ^たろう')).toBe('ﾔﾏﾀﾞ ﾀﾛｳ (山田 太郎)');
  });
});
