import { z } from 'zod';
import { storedTransferSyntax } from '../../dicom/transfer-syntax';
import {
  binary,
  errors,
  notAcceptable,
  uid,
  type DicomwebApp,
  type DicomwebRouteContext,
} from './dicomweb-route-kit';

/** WADO-URI: one instance as stored, or one of its frames rendered as an image. */
export function wadoUriRoutes(app: DicomwebApp, { dicomweb, caller }: DicomwebRouteContext): void {
  app.get(
    '/wado',
    {
      schema: {
        tags: ['dicomweb'],
        summary:
          'WADO-URI: one instance as stored (application/dicom) or one frame rendered (image/jpeg, the default, or image/png)',
        querystring: z.object({
          requestType: z.literal('WADO'),
          studyUID: uid,
          seriesUID: uid,
          objectUID: uid,
          contentType: z.string().max(200).optional(),
          transferSyntax: z.string().max(64).optional(),
          frameNumber: z.coerce.number().int().min(1).max(1_000_000).optional(),
        }),
        response: { 200: binary, ...errors },
      },
    },
    async (req, reply) => {
      const { principal, meta } = await caller(req);
      const q = req.query;
      // PS3.18 WADO-URI: without contentType a single image is asked for as image/jpeg.
      const types = (q.contentType ?? 'image/jpeg').split(',').map((t) => t.trim().toLowerCase());
      const { rows } = await dicomweb.instancesFor(principal, meta, q.studyUID, q.seriesUID, q.objectUID);
      const row = rows[0]!;
      const ts = storedTransferSyntax(row.transferSyntaxUid);
      const image = types.find((t) => t === 'image/jpeg' || t === 'image/png');
      if (image && !types.includes('application/dicom')) {
        const rendered = await dicomweb.renderFrame(
          row,
          (q.frameNumber ?? 1) - 1,
          image === 'image/png' ? 'png' : 'jpeg',
        );
        return reply.type(image).send(rendered);
      }
      if (!types.some((t) => t === 'application/dicom' || t === '*/*')) throw notAcceptable();
      if (q.transferSyntax && q.transferSyntax !== '*' && q.transferSyntax !== ts) throw notAcceptable();
      return reply.type('application/dicom').send(await dicomweb.open(row));
    },
  );
}
