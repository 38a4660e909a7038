import { z } from 'zod';
import {
  dicomJsonList,
  errors,
  query,
  sendJson,
  uid,
  type DicomwebApp,
  type DicomwebRouteContext,
} from './dicomweb-route-kit';

/** QIDO-RS: searches for studies, series and instances among those the caller may see. */
export function searchRoutes(app: DicomwebApp, { dicomweb, caller }: DicomwebRouteContext): void {
  const schema = (summary: string, params?: z.ZodObject<z.ZodRawShape>) => ({
    schema: {
      tags: ['dicomweb'],
      summary,
      ...(params ? { params } : {}),
      querystring: query,
      response: { 200: dicomJsonList, ...errors },
    },
  });

  app.get('/studies', schema('QIDO-RS: search studies'), async (req, reply) => {
    const { principal, meta } = await caller(req);
    const { result, unsupported } = await dicomweb.searchStudies(principal, req.query, meta);
    return sendJson(req, reply, result, unsupported);
  });
  app.get('/series', schema('QIDO-RS: search series'), async (req, reply) => {
    const { principal, meta } = await caller(req);
    const { result, unsupported } = await dicomweb.searchSeries(principal, req.query, meta);
    return sendJson(req, reply, result, unsupported);
  });
  app.get('/instances', schema('QIDO-RS: search instances'), async (req, reply) => {
    const { principal, meta } = await caller(req);
    const { result, unsupported } = await dicomweb.searchInstances(principal, req.query, meta);
    return sendJson(req, reply, result, unsupported);
  });
  app.get(
    '/studies/:study/series',
    schema("QIDO-RS: search a study's series", z.object({ study: uid })),
    async (req, reply) => {
      const { principal, meta } = await caller(req);
      const { study } = req.params as { study: string };
      const { result, unsupported } = await dicomweb.searchSeries(principal, req.query, meta, study);
      return sendJson(req, reply, result, unsupported);
    },
  );
  app.get(
    '/studies/:study/instances',
    schema("QIDO-RS: search a study's instances", z.object({ study: uid })),
    async (req, reply) => {
      const { principal, meta } = await caller(req);
      const { study } = req.params as { study: string };
      const { result, unsupported } = await dicomweb.searchInstances(principal, req.query, meta, study);
      return sendJson(req, reply, result, unsupported);
    },
  );
  app.get(
    '/studies/:study/series/:series/instances',
    schema("QIDO-RS: search a series' instances", z.object({ study: uid, series: uid })),
    async (req, reply) => {
      const { principal, meta } = await caller(req);
      const { study, series } = req.params as { study: string; series: string };
      const { result, unsupported } = await dicomweb.searchInstances(
        principal,
        req.query,
        meta,
        study,
        series,
      );
      return sendJson(req, reply, result, unsupported);
    },
  );
}
