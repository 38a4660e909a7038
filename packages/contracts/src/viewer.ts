import { z } from 'zod';

/** `GET /api/dicom/viewer/{studyId}`: the address that opens the study in the viewer. */
export const viewerUrlResponseSchema = z.object({ url: z.string(), expiresAt: z.string() });
export type ViewerUrlResponse = z.infer<typeof viewerUrlResponseSchema>;

/** `POST /api/studies/transfer/{id}`: preparation queued (jobId) or not needed (null). */
export const transferStudyResponseSchema = z.object({ message: z.string(), jobId: z.string().nullable() });
export type TransferStudyResponse = z.infer<typeof transferStudyResponseSchema>;
