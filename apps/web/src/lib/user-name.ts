// Kept apart from format.ts so the header's avatar does not bring date formatting into the first load.

/** First word of a display name, or 'User' (the Dashboard greeting's fallback). */
export function firstName(name: string | null | undefined): string {
  return name?.trim().split(/\s+/)[0] || 'User';
}

/** Avatar initials: first letters of the first and last words of the name, 'U' if none. */
export function initials(name: string | null | undefined): string {
  const words = name?.trim().split(/\s+/).filter(Boolean) ?? [];
  if (words.length === 0) return 'U';
  const first = words[0]!.charAt(0);
  const last = words.length > 1 ? words[words.length - 1]!.charAt(0) : '';
  return (first + last).toUpperCase();
}
