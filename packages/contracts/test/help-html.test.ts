import { describe, expect, it } from 'vitest';
import { HELP_IMAGE_PATH } from '../src/help';
import { sanitizeArticleHtml } from '../src/help-html';

describe('sanitizeArticleHtml', () => {
  const own = `${HELP_IMAGE_PATH}report-1.png`;

  it('keeps an image’s description and gives an undescribed one an empty one, never none', () => {
    expect(sanitizeArticleHtml(`<img src="${own}" alt="The findings section">`)).toBe(
      `<img src="${own}" alt="The findings section" />`,
    );
    expect(sanitizeArticleHtml(`<img src="${own}" onerror="x()">`)).toBe(`<img src="${own}" alt="" />`);
  });

  it('drops images the help centre does not serve and every handler', () => {
    expect(sanitizeArticleHtml('<p>a</p><img src="https://elsewhere.example/x.png" alt="x">')).toBe(
      '<p>a</p>',
    );
    expect(sanitizeArticleHtml('<a href="javascript:alert(1)">x</a>')).toBe('<a>x</a>');
  });
});
