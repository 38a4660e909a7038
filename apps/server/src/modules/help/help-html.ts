export { HELP_IMAGE_NAME, sanitizeArticleHtml } from '@mi/contracts/help-html';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/** The words of sanitised article HTML, for full-text search. */
export function articleText(sanitized: string): string {
  return sanitized
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_m, name: string) => ENTITIES[name] ?? ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
