import { z } from 'zod';

/**
 * The help centre (/help, /help/{id}) and its authoring in Admin → Help articles. Field names follow
 * the product specification (`_id`, `updatedAt`); `content` is HTML the server has sanitised.
 */

/** Articles per page of the help centre. */
export const HELP_PAGE_SIZE = 6;
/** The most a search may hold; longer input is refused, not truncated silently. */
export const HELP_QUERY_MAX = 200;
/** The most articles one list request may ask for. */
export const HELP_LIMIT_MAX = 50;
/** Largest image an admin may upload into an article. */
export const HELP_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
/** Image types the editor accepts; the server re-encodes every one as WebP. */
export const HELP_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
/** Where article images are served; the sanitiser keeps only images under it. */
export const HELP_IMAGE_PATH = '/api/kb/images/';

/** The categories the help centre lists first, in this order; admins may add others. */
export const HELP_CATEGORIES = [
  'Getting Started',
  'Uploading Studies',
  'Viewing & Downloading',
  'Sharing & Providers',
  'Account & Security',
  'Privacy & Storage',
  'Analyses & Billing',
] as const;

export const helpArticleSchema = z.object({
  _id: z.string(),
  title: z.string(),
  description: z.string(),
  content: z.string(),
  category: z.string(),
  featured: z.boolean(),
  updatedAt: z.string(),
});
export type HelpArticle = z.infer<typeof helpArticleSchema>;

export const helpArticleListSchema = z.object({
  data: z.array(helpArticleSchema),
  page: z.number().int(),
  totalPages: z.number().int(),
});
export type HelpArticleList = z.infer<typeof helpArticleListSchema>;

/** 'true' / 'false' as query strings send them. */
const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

export const helpListQuerySchema = z.object({
  category: z.string().trim().max(100).optional(),
  featured: queryBoolean.optional(),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  limit: z.coerce.number().int().min(1).max(HELP_LIMIT_MAX).default(HELP_PAGE_SIZE),
  q: z
    .string()
    .trim()
    .max(HELP_QUERY_MAX, `Search text is limited to ${HELP_QUERY_MAX} characters.`)
    .optional(),
});
export type HelpListQuery = z.infer<typeof helpListQuerySchema>;

export const helpCategoriesSchema = z.object({ data: z.array(z.string()) });
export const helpCountsSchema = z.object({
  featuredCount: z.number().int(),
  categoryCounts: z.record(z.string(), z.number().int()),
  /** Every published article (the 'All Articles' entry). */
  totalCount: z.number().int(),
});
export type HelpCounts = z.infer<typeof helpCountsSchema>;

// ---------------------------------------------------------------- authoring (admins)

export const helpArticleInputSchema = z.strictObject({
  title: z.string().trim().min(1, 'Title is required').max(200),
  description: z.string().trim().min(1, 'Description is required').max(500),
  /** HTML from the editor; sanitised on save. */
  content: z.string().max(200_000),
  category: z.string().trim().min(1, 'Category is required').max(100),
  featured: z.boolean(),
  published: z.boolean(),
});
export type HelpArticleInput = z.infer<typeof helpArticleInputSchema>;

/** Publish, unpublish, feature or unfeature without sending the whole article. */
export const helpArticlePatchSchema = z
  .strictObject({ featured: z.boolean().optional(), published: z.boolean().optional() })
  .refine((v) => v.featured !== undefined || v.published !== undefined, 'Nothing to change');
export type HelpArticlePatch = z.infer<typeof helpArticlePatchSchema>;

export const adminHelpArticleSchema = helpArticleSchema.extend({
  published: z.boolean(),
  createdAt: z.string(),
  publishedAt: z.string().nullable(),
});
export type AdminHelpArticle = z.infer<typeof adminHelpArticleSchema>;

export const adminHelpArticleListSchema = z.object({ data: z.array(adminHelpArticleSchema) });
export const adminHelpArticleResponseSchema = z.object({ message: z.string(), data: adminHelpArticleSchema });
export const helpImageResponseSchema = z.object({ url: z.string() });
