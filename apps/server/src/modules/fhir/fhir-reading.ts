import type { Resource } from '@medplum/fhirtypes';
import type { RequestMeta } from '../../http/request-meta';
import { type Principal } from '../access';
import { DICOMWEB_ENDPOINT_ID, diagnosticReportResource } from './fhir-resources';
import {
  auditFhir,
  type FhirServiceDeps,
  type FhirSources,
  type FhirType,
  notFound,
  orderOfReportId,
  reportsOf,
  UUID,
} from './fhir-sources';

/** GET /fhir/R4/{type}/{id}: one resource the principal may see. */
export function createFhirRead(deps: FhirServiceDeps, sources: FhirSources) {
  return {
    /** GET /fhir/R4/{type}/{id}: the resource, or the one 404 (audited as denied). */
    async read(p: Principal, type: FhirType, id: string, meta: RequestMeta): Promise<Resource> {
      const resource = `${type}/${id.slice(0, 64)}`;
      if (type === 'ImagingStudy') {
        const study = await sources.requireStudy(p, id, meta, 'read', type);
        const [found] = await sources.imagingStudies([study]);
        await auditFhir(deps, p, meta, 'read', { type: 'study', id: study.id }, 'success', { resource });
        return found!;
      }
      if (type === 'Endpoint') {
        if (id !== DICOMWEB_ENDPOINT_ID) {
          await auditFhir(deps, p, meta, 'read', { type: 'endpoint', id }, 'denied', { resource });
          throw notFound(type, id);
        }
        await auditFhir(deps, p, meta, 'read', { type: 'endpoint', id }, 'success', { resource });
        return sources.dicomwebEndpoint();
      }
      if (type === 'Patient') {
        const visible = UUID.test(id) && (await sources.visiblePatientIds(p)).includes(id.toLowerCase());
        const [found] = visible ? await sources.patients([id.toLowerCase()]) : [];
        if (!found) {
          await auditFhir(deps, p, meta, 'read', { type: 'user', id }, 'denied', { resource });
          throw notFound(type, id);
        }
        await auditFhir(deps, p, meta, 'read', { type: 'user', id: found.id! }, 'success', { resource });
        return found;
      }
      // DiagnosticReport, DocumentReference: a report of an order, readable with the order's study.
      const orderId = orderOfReportId(id);
      const row = orderId ? await deps.repo.reportsOfOrder(orderId) : undefined;
      if (!row) {
        await auditFhir(deps, p, meta, 'read', { type: 'order', id }, 'denied', { resource });
        throw notFound(type, id);
      }
      const study = await sources.requireStudy(p, row.studyId, meta, 'read', type);
      const report = reportsOf(row, study.ownerId).find((r) => r.id === id.toLowerCase());
      const doc = report && type === 'DocumentReference' ? (await sources.documents([report]))[0] : undefined;
      if (!report || (type === 'DocumentReference' && !doc)) {
        await auditFhir(deps, p, meta, 'read', { type: 'study', id: study.id }, 'denied', { resource });
        throw notFound(type, id);
      }
      await auditFhir(deps, p, meta, 'read', { type: 'study', id: study.id }, 'success', { resource });
      return doc ?? diagnosticReportResource(report);
    },
  };
}
