// @vitest-environment jsdom
import { HELP_IMAGE_PATH } from '@mi/contracts/help';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { HelpArticlePreview } from '../src/features/admin/help/components/help-article-preview';

afterEach(cleanup);

const draft = (content: string) => ({
  title: 'Burning a CD',
  description: 'How to',
  content,
  category: 'Getting Started',
  featured: false,
  published: false,
});

const previewOf = (content: string) => {
  render(<HelpArticlePreview values={draft(content)} />);
  return screen.getByTestId('preview-content');
};

describe("the help editor's preview", () => {
  it('drops what the help centre does not allow before it is shown', () => {
    const content = [
      '<p onclick="alert(1)">Hello <strong>readers</strong></p>',
      '<script>window.pwned = true</script>',
      '<img src="x" onerror="window.pwned = true">',
      '<img src="https://evil.example/track.png">',
      '<a href="javascript:alert(1)">click</a>',
      '<iframe src="https://evil.example/"></iframe>',
      '<form action="https://evil.example/"><input name="password"></form>',
      '<style>body { display: none }</style>',
      '<svg><script>alert(1)</script></svg>',
    ].join('');
    const preview = previewOf(content);
    const html = preview.innerHTML;
    expect(preview.querySelectorAll('script, iframe, form, input, style, svg')).toHaveLength(0);
    expect(html).not.toMatch(/onerror|onclick|javascript:|evil\.example/);
    expect(preview.querySelectorAll('img')).toHaveLength(0);
    expect(preview.querySelector('p')?.textContent).toBe('Hello readers');
    expect(preview.querySelector('strong')).toBeTruthy();
    expect((window as unknown as { pwned?: boolean }).pwned).toBeUndefined();
  });

  it("shows what readers will see: formatting, links and the help centre's own pictures", () => {
    const preview = previewOf(
      [
        '<h1>Title</h1>',
        '<ul><li>one</li></ul>',
        '<a href="https://example.org/guide">guide</a>',
        '<a href="/help">help</a>',
        `<img src="${HELP_IMAGE_PATH}cd-drive.webp" alt="A CD drive">`,
      ].join(''),
    );
    // The article title is the page's only h1.
    expect(preview.querySelector('h1')).toBeNull();
    expect(preview.querySelector('h2')?.textContent).toBe('Title');
    expect(preview.querySelector('li')?.textContent).toBe('one');
    const external = screen.getByRole('link', { name: 'guide' });
    expect(external.getAttribute('target')).toBe('_blank');
    expect(external.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(screen.getByRole('link', { name: 'help' }).getAttribute('target')).toBeNull();
    expect(screen.getByRole('img', { name: 'A CD drive' }).getAttribute('src')).toBe(
      `${HELP_IMAGE_PATH}cd-drive.webp`,
    );
  });
});
