import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { DeidentifyPreview, LeftOutInstance } from '@mi/contracts/deidentify';
import { APPLIED_OPTIONS, PROFILE_EDITION } from '../../dicom/deidentify/profile';
import type { RequestMeta } from '../../http/request-meta';
import type { AuthenticatedSession } from '../auth';
import { zipStream, type ZipEntry } from '../../dicom-archive/zip-writer';

import {
  type DeidentifyDeps,
  type DeidentifyTools,
  leftOutOf,
  OPTION_NAMES,
  PROFILE,
  type Deidentified,
} from './deidentify-context';

/** What the owner sees before or instead of a copy: the preview of one instance, and the ZIP download. */
export function createDeidentifyPreview(deps: DeidentifyDeps, tools: DeidentifyTools) {
  return {
    async preview(
      auth: AuthenticatedSession,
      studyId: string,
      meta: RequestMeta,
      opts: { includePdfReports?: boolean } = {},
    ): Promise<DeidentifyPreview> {
      const study = await tools.requireOwner(auth, studyId, meta, 'study.deidentify.preview');
      const rows = await deps.studiesRepo.instancesForDownload(study.id);
      // The preview's UIDs are of a throwaway copy: what a real copy gets is never shown in advance.
      const ctx = tools.context(study.ownerId, randomUUID(), opts.includePdfReports ?? false);
      let sample: Deidentified | null = null;
      const leftOut: LeftOutInstance[] = [];
      for await (const { row, result } of tools.deidentifyAll(rows, ctx)) {
        if (result.kind === 'left-out') leftOut.push(leftOutOf(row, result));
        else sample ??= result;
      }
      await tools.success(auth, meta, 'study.deidentify.preview', study, {
        instances: rows.length,
        leftOut: leftOut.length,
      });
      const top = sample?.changes.filter((c) => !c.path.includes('>')) ?? [];
      return {
        edition: PROFILE_EDITION,
        profile: PROFILE,
        options: APPLIED_OPTIONS.map((o) => OPTION_NAMES[o] ?? o),
        instanceCount: rows.length,
        sample: sample
          ? {
              sopInstanceUid: sample.sopInstanceUid,
              changes: top,
              nestedChanges: sample.changes.length - top.length,
              privateRemoved: sample.privateRemoved,
            }
          : null,
        leftOut,
      };
    },

    /**
     * The study's de-identified files as a ZIP, made while it streams (one file in memory at a time),
     * with `LEFT-OUT.txt` naming what stayed out and why. Every download is a copy of its own: new
     * UIDs each time, the owner's dates shifted as in every copy.
     */
    async download(
      auth: AuthenticatedSession,
      studyId: string,
      meta: RequestMeta,
      opts: { includePdfReports?: boolean } = {},
    ) {
      const study = await tools.requireIdentifiedSource(auth, studyId, meta, 'study.download.deidentified');
      const rows = await deps.studiesRepo.instancesForDownload(study.id);
      const ctx = tools.context(
        study.ownerId,
        tools.key(`download:${randomUUID()}`),
        opts.includePdfReports ?? false,
      );
      await tools.success(auth, meta, 'study.download.deidentified', study, { instances: rows.length });
      const seriesIndex = new Map<string, number>();
      const perSeries = new Map<string, number>();
      const leftOut: string[] = [];
      async function* entries(): AsyncGenerator<ZipEntry> {
        for await (const { row, result } of tools.deidentifyAll(rows, ctx)) {
          if (result.kind === 'left-out') {
            leftOut.push(`${row.modality ?? 'OT'} instance ${leftOut.length + 1}: ${result.reason}`);
            continue;
          }
          if (!seriesIndex.has(row.seriesUid)) seriesIndex.set(row.seriesUid, seriesIndex.size + 1);
          const n = (perSeries.get(row.seriesUid) ?? 0) + 1;
          perSeries.set(row.seriesUid, n);
          const folder = `${String(seriesIndex.get(row.seriesUid)).padStart(3, '0')}_${(row.modality ?? 'OT').replace(/[^A-Za-z0-9]/g, '') || 'OT'}`;
          yield { name: `${folder}/${String(n).padStart(5, '0')}.dcm`, data: result.bytes };
        }
        if (leftOut.length > 0) {
          const text = [
            `De-identified to ${PROFILE_EDITION} (${PROFILE}; ${APPLIED_OPTIONS.map((o) => OPTION_NAMES[o] ?? o).join('; ')}).`,
            'Left out of this archive:',
            ...leftOut,
            '',
          ].join('\n');
          yield { name: 'LEFT-OUT.txt', data: Buffer.from(text, 'utf8') };
        }
      }
      // One de-identified file in memory at a time; each is whole before its entry is written.
      return { study, stream: Readable.from(zipStream(entries(), { at: new Date() })) };
    },
  };
}
