/** Accepts only same-app paths ('/…', not '//host' or '/\host') so a query parameter cannot redirect off-site. */
export function safeAppPath(value: string | null | undefined): string | null {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return null;
  return value;
}
