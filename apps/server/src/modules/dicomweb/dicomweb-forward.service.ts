import type { Readable } from 'node:stream';
import type { RequestMeta } from '../../http/request-meta';
import type { DicomStore } from '../../ports/dicom-store/dicom-store';
import type { Principal } from '../access';
import { DICOMWEB_ROOT, type DicomwebAccess } from './dicomweb-access';

/** An answer of the external store to a forwarded read. */
export interface ForwardedRead {
  status: number;
  contentType: string | null;
  /** Empty for an error status (the store's own body is discarded). */
  body: Readable | string;
}

export interface DicomwebForwardingDeps {
  access: DicomwebAccess;
  store: DicomStore;
}

/** Reads answered by an external DICOMweb store (DICOMWEB_URL), after our own access check. */
export function createDicomwebForwarding(deps: DicomwebForwardingDeps) {
  const { audit, resolveStudy, resolveSeries, resolveInstance } = deps.access;

  return {
    /** Whether reads are answered by an external DICOMweb store (DICOMWEB_URL) after our access check. */
    forwarding: deps.store.kind === 'dicomweb' && Boolean(deps.store.forward),

    /**
     * A WADO-RS read answered by the external store (path below DICOMWEB_ROOT, query included). The
     * store's bulk data links in metadata point at itself; they are pointed back at us, since the
     * viewer may only talk to us.
     */
    async forward(pathAndQuery: string, accept: string | undefined): Promise<ForwardedRead> {
      const res = await deps.store.forward!(pathAndQuery, accept);
      if (res.status >= 400) {
        res.body.resume();
        return { status: res.status, contentType: res.contentType, body: '' };
      }
      if (res.contentType?.includes('json') && /\/metadata$/.test(pathAndQuery.split('?')[0]!)) {
        const chunks: Buffer[] = [];
        for await (const c of res.body) chunks.push(c as Buffer);
        const text = Buffer.concat(chunks).toString('utf8').split(deps.store.root!).join(DICOMWEB_ROOT);
        return { status: res.status, contentType: res.contentType, body: text };
      }
      return res;
    },

    /** For the external store: the access check and audit, before the read is forwarded. */
    async authorizeForward(
      p: Principal,
      meta: RequestMeta,
      studyUid: string,
      seriesUid?: string,
      sopUid?: string,
    ) {
      const study =
        sopUid && seriesUid
          ? (await resolveInstance(p, studyUid, seriesUid, sopUid, meta, 'forward')).study
          : seriesUid
            ? (await resolveSeries(p, studyUid, seriesUid, meta, 'forward')).study
            : await resolveStudy(p, studyUid, meta, 'forward');
      await audit(p, meta, 'forward', study.id, 'success', {
        level: sopUid ? 'instance' : seriesUid ? 'series' : 'study',
      });
      return study;
    },
  };
}
export type DicomwebForwarding = ReturnType<typeof createDicomwebForwarding>;
