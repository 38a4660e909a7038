/** The instance in the middle of a series (instances in instance-number order), or undefined when empty. */
export function middleInstance<T>(instances: readonly T[]): T | undefined {
  return instances[Math.floor((instances.length - 1) / 2)];
}

/**
 * Which instances a study's picture is drawn from, best first: the middle instance of each series,
 * the series with most instances first. `instances` are the study's in series order, then instance
 * order; series of equal size keep that order. The study cards (thumbnail.service.ts) and DICOMweb's
 * rendered study thumbnail both pick by this.
 */
export function studyThumbnailCandidates<T>(
  instances: readonly T[],
  seriesOf: (instance: T) => string,
  limit = Number.POSITIVE_INFINITY,
): T[] {
  const bySeries = new Map<string, T[]>();
  for (const instance of instances) {
    const key = seriesOf(instance);
    const list = bySeries.get(key);
    if (list) list.push(instance);
    else bySeries.set(key, [instance]);
  }
  // A stable sort: among series of the same size, the first in series order wins.
  return [...bySeries.values()]
    .sort((a, b) => b.length - a.length)
    .slice(0, limit)
    .map((list) => middleInstance(list)!);
}
