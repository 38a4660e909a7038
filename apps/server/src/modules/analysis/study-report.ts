import { storedTransferSyntax } from '../../dicom/transfer-syntax';
import { parseInstance, type ParsedInstance } from '../dicomweb';
import { readInstance } from '../../dicom-archive/instance-location';
import { renderFitted } from '../thumbnails';
import { middleInstance } from '../thumbnails';
import type { Logger } from 'pino';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { AnalysisRepository, StoredInstance } from './analysis.repository';
import {
  instanceFacts,
  pixelStatistics,
  technicalReport,
  type InstanceFacts,
  type SeriesInput,
} from './technical-summary';

// The built-in automated report of a study: its technical summary and key images.

/** What fulfilment (modules/fulfilment/report-delivery.ts) turns into a PDF series (and a completed order). */
export interface AnalysisReport {
  title: string;
  automated: boolean;
  sections: Array<{ heading: string; text: string }>;
  keyImages?: Array<{ caption: string; jpeg: Buffer }>;
}

/** An analysis that no retry can make succeed (no study, no images): the order is refunded at once. */
export class AnalysisImpossibleError extends Error {
  override readonly name = 'AnalysisImpossibleError';
}

const KEY_IMAGE_SIZE = 512;
const MAX_KEY_IMAGES = 4;

export function errorText(err: unknown): string {
  const e = err as Error;
  return `${e?.name ?? 'Error'}: ${String(e?.message ?? err)}`.slice(0, 300);
}

/** Reads every instance's header, the middle image's pixels and draws the key images. */
export async function buildStudyReport(
  deps: {
    repo: Pick<AnalysisRepository, 'instancesOfStudy'>;
    storage: ObjectStorage;
    log: Logger;
    maxDecodedBytes: number;
  },
  studyId: string,
): Promise<AnalysisReport> {
  const stored = await deps.repo.instancesOfStudy(studyId);
  if (stored.length === 0) throw new AnalysisImpossibleError('the study has no stored images');
  const bySeries = new Map<string, StoredInstance[]>();
  for (const i of stored) {
    const list = bySeries.get(i.seriesId);
    if (list) list.push(i);
    else bySeries.set(i.seriesId, [i]);
  }
  const inputs: SeriesInput[] = [];
  const keyCandidates: Array<{ caption: string; loc: StoredInstance; size: number }> = [];
  let unreadable = 0;
  for (const list of bySeries.values()) {
    const first = list[0]!;
    const facts: InstanceFacts[] = [];
    const middle = middleInstance(list);
    let middleParsed: ParsedInstance | undefined;
    for (const loc of list) {
      let parsed: ParsedInstance;
      try {
        parsed = parseInstance(
          await readInstance(deps.storage, loc),
          storedTransferSyntax(loc.transferSyntaxUid),
        );
      } catch (err) {
        if ((err as Error)?.name !== 'DicomReadError') throw err;
        unreadable++;
        continue;
      }
      facts.push(instanceFacts(parsed.ds));
      if (loc === middle) middleParsed = parsed;
    }
    // Slices in the order they lie, whatever order instance numbers gave.
    facts.sort((a, b) => (a.instanceNumber ?? 0) - (b.instanceNumber ?? 0));
    inputs.push({
      seriesNumber: first.seriesNumber,
      description: first.seriesDescription,
      modality: first.modality,
      instances: facts,
      statistics: middleParsed ? pixelStatistics(middleParsed) : { unavailable: 'middle image unreadable' },
    });
    const label = `Series ${first.seriesNumber ?? inputs.length}`;
    if (list.length >= 3 && bySeries.size === 1) {
      // One series: its first quarter, middle and last quarter.
      for (const [at, name] of [
        [0.25, 'upper quarter'],
        [0.5, 'middle'],
        [0.75, 'lower quarter'],
      ] as const)
        keyCandidates.push({
          caption: `${label}, ${name} image (${Math.floor((list.length - 1) * at) + 1} of ${list.length})`,
          loc: list[Math.floor((list.length - 1) * at)]!,
          size: list.length,
        });
    } else if (middle) {
      keyCandidates.push({
        caption: `${label}, middle image (${Math.floor((list.length - 1) / 2) + 1} of ${list.length})`,
        loc: middle,
        size: list.length,
      });
    }
  }
  const report = technicalReport(inputs);
  if (unreadable > 0)
    report.sections.splice(2, 0, {
      heading: 'Unreadable images',
      text: `${unreadable} stored file(s) could not be read and are not counted above.`,
    });
  const keyImages: NonNullable<AnalysisReport['keyImages']> = [];
  for (const c of keyCandidates.sort((a, b) => b.size - a.size)) {
    if (keyImages.length >= MAX_KEY_IMAGES) break;
    try {
      const jpeg = await renderFitted(
        await readInstance(deps.storage, c.loc),
        undefined,
        'jpeg',
        KEY_IMAGE_SIZE,
        KEY_IMAGE_SIZE,
        deps.maxDecodedBytes,
      );
      keyImages.push({ caption: c.caption, jpeg });
    } catch (err) {
      // A report without one picture is still a report; the reason is logged, not shown.
      deps.log.warn({ err: errorText(err) }, 'key image not drawn');
    }
  }
  return { ...report, automated: true, keyImages };
}
