import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { VENDOR_HEADERS, VENDOR_REPORT_MAX_BYTES, vendorReportAnswerSchema } from '@mi/contracts/vendors';
import { requestMeta } from '../../http/auth-hook';
import type { VendorsService } from './vendors.service';

const header = (v: string | string[] | undefined) => (typeof v === 'string' ? v : undefined);

/**
 * POST /api/vendors/orders/{orderId}/report: an external AI vendor's report, signed with its
 * provider's secret (docs/decisions.md, "External AI vendors"). Its own plugin, so only this route
 * reads the body as the raw bytes the signature covers.
 */
export function vendorsRoutes(vendors: VendorsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) =>
      done(null, body),
    );
    app.post(
      '/vendors/orders/:orderId/report',
      {
        bodyLimit: VENDOR_REPORT_MAX_BYTES,
        schema: {
          tags: ['vendors'],
          summary:
            "An external AI vendor's report on an order sent to it (signed: x-mi-timestamp, x-mi-signature)",
          description:
            'The body (JSON: title?, findings, impression, recommendation?, sections?) is read as the raw ' +
            'bytes the signature covers, then checked (docs/decisions.md, "External AI vendors").',
          params: z.object({ orderId: z.string().max(64) }),
          response: {
            200: vendorReportAnswerSchema,
            400: errorBodySchema,
            401: errorBodySchema,
            404: errorBodySchema,
            409: errorBodySchema,
            413: errorBodySchema,
          },
        },
      },
      async (req) => {
        const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        return vendors.receiveReport(
          req.params.orderId,
          {
            timestamp: header(req.headers[VENDOR_HEADERS.timestamp]),
            signature: header(req.headers[VENDOR_HEADERS.signature]),
          },
          raw,
          requestMeta(req),
        );
      },
    );
  };
}
