/**
 * The embeddable widget: settings (style, theme, size, texts, logo, custom colours) and the HTML
 * snippet they make. The snippet is self-contained: inline styles, an <a> to the invite link, no
 * script, so it works pasted into any page of any site.
 */
export const WIDGET_STYLES = ['button', 'banner', 'badge', 'card'] as const;
export const WIDGET_THEMES = ['blue', 'green', 'purple', 'dark', 'custom'] as const;
export const WIDGET_SIZES = ['small', 'medium', 'large'] as const;
export type WidgetStyle = (typeof WIDGET_STYLES)[number];
export type WidgetTheme = (typeof WIDGET_THEMES)[number];
export type WidgetSize = (typeof WIDGET_SIZES)[number];

export interface WidgetColors {
  background: string;
  text: string;
  border: string;
}

export interface WidgetSettings {
  style: WidgetStyle;
  theme: WidgetTheme;
  size: WidgetSize;
  text: string;
  subtext: string;
  showLogo: boolean;
  customColors: WidgetColors;
}

export const THEME_COLORS: Record<Exclude<WidgetTheme, 'custom'>, WidgetColors> = {
  blue: { background: '#0066cc', text: '#ffffff', border: '#0052a3' },
  green: { background: '#15803d', text: '#ffffff', border: '#166534' },
  purple: { background: '#7c3aed', text: '#ffffff', border: '#6d28d9' },
  dark: { background: '#111827', text: '#f9fafb', border: '#374151' },
};

export const DEFAULT_WIDGET_SETTINGS: WidgetSettings = {
  style: 'button',
  theme: 'blue',
  size: 'medium',
  text: 'Send me your medical images',
  subtext: 'Upload your studies securely to my Medical Imaging account',
  showLogo: true,
  customColors: { ...THEME_COLORS.blue },
};

const SIZES: Record<WidgetSize, { font: number; sub: number; padY: number; padX: number; logo: number }> = {
  small: { font: 13, sub: 11, padY: 6, padX: 12, logo: 16 },
  medium: { font: 15, sub: 12, padY: 10, padX: 18, logo: 20 },
  large: { font: 18, sub: 14, padY: 14, padX: 24, logo: 26 },
};

const HEX = /^#[0-9a-f]{6}$/i;
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escape = (v: string) => v.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** The colours a widget is drawn with; a custom colour that is not #rrggbb falls back to the theme's. */
export function widgetColors(s: Pick<WidgetSettings, 'theme' | 'customColors'>): WidgetColors {
  if (s.theme !== 'custom') return THEME_COLORS[s.theme];
  const pick = (v: string, fallback: string) => (HEX.test(v) ? v : fallback);
  return {
    background: pick(s.customColors.background, THEME_COLORS.blue.background),
    text: pick(s.customColors.text, THEME_COLORS.blue.text),
    border: pick(s.customColors.border, THEME_COLORS.blue.border),
  };
}

function logo(size: number, color: string): string {
  // A simple image-frame mark, inline so the snippet needs nothing from our site.
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 24 24" fill="none" stroke="${color}" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" style="flex:none"><rect x="3" y="3" width="18" height="18" rx="3"/><circle cx="12" cy="12" r="4"/><path d="M12 3v3M12 18v3M3 12h3M18 12h3"/></svg>`;
}

/** The widget's HTML for `url` (the invite link): everything escaped, styles inline. */
export function widgetHtml(s: WidgetSettings, url: string): string {
  const c = widgetColors(s);
  const z = SIZES[s.size];
  const text = escape(s.text.trim() || DEFAULT_WIDGET_SETTINGS.text);
  const subtext = s.subtext.trim() ? escape(s.subtext.trim()) : '';
  const href = escape(url);
  const font = 'font-family:Arial,Helvetica,sans-serif;text-decoration:none;box-sizing:border-box;';
  const mark = s.showLogo ? logo(z.logo, c.text) : '';
  const link = (style: string, inner: string) =>
    `<a href="${href}" target="_blank" rel="noopener" data-medical-imaging-widget="${s.style}" style="${font}${style}">${inner}</a>`;
  const sub = (extra = '') =>
    subtext
      ? `<span style="display:block;font-size:${z.sub}px;opacity:0.85;font-weight:normal;${extra}">${subtext}</span>`
      : '';

  switch (s.style) {
    case 'badge':
      return link(
        `display:inline-flex;align-items:center;gap:6px;padding:${Math.round(z.padY / 2)}px ${z.padX - 4}px;border-radius:999px;border:1px solid ${c.border};background:${c.background};color:${c.text};font-size:${z.sub}px;font-weight:bold;line-height:1.2;`,
        `${mark}<span>${text}</span>`,
      );
    case 'banner':
      return link(
        `display:flex;align-items:center;gap:12px;width:100%;padding:${z.padY + 4}px ${z.padX}px;border-radius:6px;border:1px solid ${c.border};background:${c.background};color:${c.text};line-height:1.3;`,
        `${mark}<span style="display:block"><span style="display:block;font-size:${z.font}px;font-weight:bold">${text}</span>${sub()}</span>`,
      );
    case 'card':
      return link(
        `display:inline-block;max-width:320px;padding:${z.padY + 8}px ${z.padX}px;border-radius:10px;border:1px solid ${c.border};background:${c.background};color:${c.text};line-height:1.35;box-shadow:0 2px 8px rgba(0,0,0,0.12);`,
        `${mark ? `<span style="display:block;margin-bottom:8px">${mark}</span>` : ''}<span style="display:block;font-size:${z.font + 2}px;font-weight:bold">${text}</span>${sub('margin-top:4px')}<span style="display:inline-block;margin-top:10px;font-size:${z.sub}px;font-weight:bold;text-decoration:underline">Upload studies &rarr;</span>`,
      );
    default:
      return link(
        `display:inline-flex;align-items:center;gap:8px;padding:${z.padY}px ${z.padX}px;border-radius:6px;border:1px solid ${c.border};background:${c.background};color:${c.text};font-size:${z.font}px;font-weight:bold;line-height:1.2;`,
        `${mark}<span style="display:block">${text}${sub('margin-top:2px')}</span>`,
      );
  }
}
