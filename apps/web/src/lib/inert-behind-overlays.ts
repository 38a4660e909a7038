/**
 * While a dialog, menu, select or popover is open, Radix hides the rest of the page from screen
 * readers (`aria-hidden` on the siblings of the overlay, marked `data-aria-hidden`). That content
 * stayed focusable, which assistive technology reports as hidden yet reachable. This marks the same
 * elements `inert` for as long as they are hidden, and only those it marked.
 */
const MARK = 'data-inert-behind-overlay';

function sync(el: Element) {
  if (!(el instanceof HTMLElement)) return;
  const hiddenByOverlay = el.getAttribute('aria-hidden') === 'true' && el.hasAttribute('data-aria-hidden');
  if (hiddenByOverlay && !el.hasAttribute('inert')) {
    el.setAttribute('inert', '');
    el.setAttribute(MARK, '');
  } else if (!hiddenByOverlay && el.hasAttribute(MARK)) {
    el.removeAttribute('inert');
    el.removeAttribute(MARK);
  }
}

export function keepHiddenContentInert(root: HTMLElement = document.body): MutationObserver {
  const observer = new MutationObserver((mutations) => {
    for (const m of mutations) sync(m.target as Element);
  });
  observer.observe(root, {
    subtree: true,
    attributes: true,
    attributeFilter: ['aria-hidden', 'data-aria-hidden'],
  });
  root.querySelectorAll('[data-aria-hidden]').forEach(sync);
  return observer;
}
