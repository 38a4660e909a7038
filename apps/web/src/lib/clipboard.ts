/** Copies text; falls back to a hidden textarea where the async clipboard is unavailable (plain HTTP). */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}

/** Copies a PNG image; needs the async clipboard with ClipboardItem (secure contexts). */
export async function copyPng(blob: Blob): Promise<void> {
  if (!navigator.clipboard?.write || typeof ClipboardItem === 'undefined')
    throw new Error('no image clipboard');
  await navigator.clipboard.write([new ClipboardItem({ 'image/png': blob })]);
}
