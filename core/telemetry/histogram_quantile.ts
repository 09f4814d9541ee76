/**
 * Quantiles of a Prometheus-style histogram from its bucket counts, the way `histogram_quantile`
 * reads them: find the bucket the rank falls in and interpolate linearly between its bounds, as
 * if its observations were spread evenly. Pure: it reads only the counts it is given.
 */

/** A bucket: how many observations were ≤ `le` (cumulative); the last one's `le` is Infinity. */
export interface Bucket {
  le: number;
  count: number;
}

/**
 * The `q`-quantile (0 ≤ q ≤ 1) of cumulative `buckets` (ascending `le`, the +Inf one last), or
 * null when nothing was observed. The first bucket's lower bound is 0; a rank in the +Inf bucket
 * answers the largest finite bound, since nothing says how far above it the observations were.
 */
export function histogramQuantile(q: number, buckets: readonly Bucket[]): number | null {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile ${q} is not within 0..1`);
  const total = buckets.at(-1)?.count ?? 0;
  if (total === 0) return null;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const bucket of buckets) {
    if (bucket.count >= rank && bucket.count > below) {
      if (bucket.le === Infinity) return lower;
      return lower + (bucket.le - lower) * (rank - below) / (bucket.count - below);
    }
    if (bucket.le !== Infinity) lower = bucket.le;
    below = bucket.count;
  }
  return lower;
}

/** The buckets of several series with the same bounds, added up (every channel's, say). */
export function addBuckets(series: ReadonlyArray<readonly Bucket[]>): Bucket[] {
  const sums: Bucket[] = [];
  for (const buckets of series) {
    buckets.forEach((bucket, index) => {
      sums[index] ??= { le: bucket.le, count: 0 };
      if (sums[index].le !== bucket.le) throw new RangeError("buckets with different bounds");
      sums[index].count += bucket.count;
    });
  }
  return sums;
}
