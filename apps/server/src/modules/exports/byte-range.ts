/** One `Range: bytes=…` header against a length; null means "send it whole" (RFC 9110 14.2). */
export function parseRange(
  header: string | undefined,
  length: number,
): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges, or another unit: ignored, as the RFC allows.
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || length === 0) return 'unsatisfiable';
    return { start: Math.max(0, length - suffix), end: length - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? length - 1 : Math.min(Number(m[2]), length - 1);
  if (start >= length || end < start) return 'unsatisfiable';
  return { start, end };
}
