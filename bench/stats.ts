/** Order statistics for the bench (nearest-rank percentiles: p99 of 1,000 samples is the 990th). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new RangeError("percentile of no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** ours / baseline, rounded to 3 places (a ratio below 1 means ours is smaller / faster). */
export function ratio(ours: number, baseline: number): number {
  return Math.round((ours / baseline) * 1000) / 1000;
}

export function round(value: number, places = 2): number {
  const f = 10 ** places;
  return Math.round(value * f) / f;
}
