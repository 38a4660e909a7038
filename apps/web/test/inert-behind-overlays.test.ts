// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { keepHiddenContentInert } from '../src/lib/inert-behind-overlays';

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('keepHiddenContentInert', () => {
  let observer: MutationObserver | undefined;
  afterEach(() => {
    observer?.disconnect();
    document.body.innerHTML = '';
  });

  it('makes the page inert while an overlay hides it, and gives it back when it closes', async () => {
    document.body.innerHTML = '<div id="root"><button>Behind</button></div><div id="kept" inert></div>';
    observer = keepHiddenContentInert();
    const root = document.getElementById('root')!;
    const kept = document.getElementById('kept')!;

    // What Radix does when a menu opens: the siblings of its portal are hidden and marked.
    for (const el of [root, kept]) {
      el.setAttribute('aria-hidden', 'true');
      el.setAttribute('data-aria-hidden', 'true');
    }
    await settle();
    expect(root.hasAttribute('inert')).toBe(true);
    expect(kept.hasAttribute('inert')).toBe(true);

    for (const el of [root, kept]) {
      el.removeAttribute('aria-hidden');
      el.removeAttribute('data-aria-hidden');
    }
    await settle();
    expect(root.hasAttribute('inert')).toBe(false);
    // Inert before the overlay opened: left as it was.
    expect(kept.hasAttribute('inert')).toBe(true);
  });

  it('leaves content hidden by the app itself alone', async () => {
    document.body.innerHTML = '<div id="icon"></div>';
    observer = keepHiddenContentInert();
    const icon = document.getElementById('icon')!;
    icon.setAttribute('aria-hidden', 'true');
    await settle();
    expect(icon.hasAttribute('inert')).toBe(false);
  });
});
