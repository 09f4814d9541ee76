/**
 * Latencies counted in log-scale bins, four per doubling: a bin keeps a count, never the
 * samples, so histograms of any number of attempts merge by adding counts and stay small. The
 * median read back is within about 9% of the true one.
 */

/** Bin number → count. */
export type LatencyHistogram = Record<string, number>;

const BINS_PER_DOUBLING = 4;

/** The bin of `ms`: bin n holds latencies in (2^((n-1)/4), 2^(n/4)] ms; bin 0 holds ≤ 1 ms. */
export function latencyBin(ms: number): number {
  if (!(ms > 1)) return 0;
  return Math.ceil(Math.log2(ms) * BINS_PER_DOUBLING);
}

/** The latency a bin stands for: the geometric middle of its range, in whole ms. */
function binLatency(bin: number): number {
  if (bin === 0) return 1;
  return Math.round(2 ** ((bin - 0.5) / BINS_PER_DOUBLING));
}

/** Adds `from`'s counts to `into`. */
export function addHistogram(into: LatencyHistogram, from: LatencyHistogram): void {
  for (const [bin, count] of Object.entries(from)) into[bin] = (into[bin] ?? 0) + count;
}

/** The median latency of `histogram` in ms, or null when it is empty. */
export function medianLatency(histogram: LatencyHistogram): number | null {
  const bins = Object.entries(histogram).map(([bin, count]) => [Number(bin), count])
    .sort(([a], [b]) => a - b);
  const total = bins.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return null;
  let seen = 0;
  for (const [bin, count] of bins) {
    seen += count;
    if (seen * 2 >= total) return binLatency(bin);
  }
  return null;
}
