import { Copy } from 'lucide-react';
import { useId, useMemo, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { NativeSelect } from '@/components/ui/native-select';
import { Switch } from '@/components/ui/switch';
import { Textarea } from '@/components/ui/textarea';
import { toast } from '@/hooks/use-toast';
import { copyText } from '@/lib/clipboard';
import {
  DEFAULT_WIDGET_SETTINGS,
  WIDGET_SIZES,
  WIDGET_STYLES,
  WIDGET_THEMES,
  widgetColors,
  widgetHtml,
  type WidgetColors,
  type WidgetSettings,
} from '../utils/widget-snippet';

const capitalise = (v: string) => v.charAt(0).toUpperCase() + v.slice(1);

/** The preview page: the snippet alone on a plain page, as another site would show it. */
function previewDocument(snippet: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0;padding:16px;background:#f8fafc;display:flex;align-items:center;justify-content:center;min-height:calc(100vh - 32px)}</style></head><body>${snippet}</body></html>`;
}

/** Share & Embed → Embeddable Widget: settings, a live preview and the HTML to paste into a website. */
export function WidgetPanel({ url }: { url: string }) {
  const id = useId();
  const [settings, setSettings] = useState<WidgetSettings>(DEFAULT_WIDGET_SETTINGS);
  const snippet = useMemo(() => widgetHtml(settings, url), [settings, url]);
  const set = <K extends keyof WidgetSettings>(key: K, value: WidgetSettings[K]) =>
    setSettings((s) => ({ ...s, [key]: value }));
  const setColor = (key: keyof WidgetColors, value: string) =>
    setSettings((s) => ({ ...s, customColors: { ...s.customColors, [key]: value } }));

  const copy = async () => {
    try {
      await copyText(snippet);
      toast({ title: 'Copied', description: 'Widget HTML copied to clipboard.' });
    } catch {
      toast({
        title: 'Copy Failed',
        description: 'Failed to copy HTML. Please try again.',
        variant: 'destructive',
      });
    }
  };

  const colors = widgetColors(settings);
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <fieldset className="grid content-start gap-4">
        <legend className="mb-2 text-sm font-medium">Widget settings</legend>
        <div className="grid gap-4 sm:grid-cols-3">
          <div className="grid gap-2">
            <Label htmlFor={`${id}-style`}>Style</Label>
            <NativeSelect
              id={`${id}-style`}
              value={settings.style}
              onChange={(e) => set('style', e.target.value as WidgetSettings['style'])}
            >
              {WIDGET_STYLES.map((v) => (
                <option key={v} value={v}>
                  {capitalise(v)}
                </option>
              ))}
            </NativeSelect>
          </div>
          <div className="grid gap-2">
            <Label htmlFor={`${id}-theme`}>Theme</Label>
            <NativeSelect
              id={`${id}-theme`}
              value={settings.theme}
              onChange={(e) => {
                const theme = e.target.value as WidgetSettings['theme'];
                // Custom starts from the colours shown so far.
                setSettings((s) => ({
                  ...s,
                  theme,
                  customColors: theme === 'custom' ? widgetColors(s) : s.customColors,
                }));
              }}
            >
              {WIDGET_THEMES.map((v) => (
                <option key={v} value={v}>
                  {capitalise(v)}
                </option>
              ))}
            </NativeSelect>
          </div>
          <div className="grid gap-2">
            <Label htmlFor={`${id}-size`}>Size</Label>
            <NativeSelect
              id={`${id}-size`}
              value={settings.size}
              onChange={(e) => set('size', e.target.value as WidgetSettings['size'])}
            >
              {WIDGET_SIZES.map((v) => (
                <option key={v} value={v}>
                  {capitalise(v)}
                </option>
              ))}
            </NativeSelect>
          </div>
        </div>
        <div className="grid gap-2">
          <Label htmlFor={`${id}-text`}>Text</Label>
          <Input
            id={`${id}-text`}
            maxLength={80}
            value={settings.text}
            onChange={(e) => set('text', e.target.value)}
          />
        </div>
        <div className="grid gap-2">
          <Label htmlFor={`${id}-subtext`}>Subtext</Label>
          <Input
            id={`${id}-subtext`}
            maxLength={140}
            value={settings.subtext}
            onChange={(e) => set('subtext', e.target.value)}
          />
        </div>
        <div className="flex items-center gap-3">
          <Switch id={`${id}-logo`} checked={settings.showLogo} onCheckedChange={(v) => set('showLogo', v)} />
          <Label htmlFor={`${id}-logo`}>Show logo</Label>
        </div>
        {settings.theme === 'custom' && (
          <div className="grid grid-cols-3 gap-3">
            {(['background', 'text', 'border'] as const).map((key) => (
              <div key={key} className="grid gap-2">
                <Label htmlFor={`${id}-color-${key}`}>{capitalise(key)}</Label>
                <input
                  id={`${id}-color-${key}`}
                  type="color"
                  value={colors[key]}
                  onChange={(e) => setColor(key, e.target.value)}
                  className="h-10 w-full cursor-pointer rounded-md border border-input bg-card p-1"
                />
              </div>
            ))}
          </div>
        )}
      </fieldset>
      <div className="grid min-w-0 content-start gap-4">
        <div className="grid gap-2">
          <p className="text-sm font-medium" id={`${id}-preview-label`}>
            Preview
          </p>
          <iframe
            title="Widget preview"
            aria-labelledby={`${id}-preview-label`}
            // No scripts, nothing of ours: the preview shows the snippet as another site would.
            sandbox="allow-popups allow-popups-to-escape-sandbox"
            srcDoc={previewDocument(snippet)}
            className="h-56 w-full rounded-md border bg-white"
          />
        </div>
        <div className="grid gap-2">
          <Label htmlFor={`${id}-html`}>HTML to paste into your website</Label>
          <Textarea id={`${id}-html`} readOnly value={snippet} rows={6} className="font-mono text-xs" />
          <div>
            <Button onClick={() => void copy()}>
              <Copy aria-hidden="true" /> Copy HTML
            </Button>
          </div>
        </div>
      </div>
    </div>
  );
}
