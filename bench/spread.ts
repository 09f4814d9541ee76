/** The median of repeated measurements, with their spread. */

export interface Spread {
  median: number;
  min: number;
  max: number;
  values: number[];
}

/** Median, min and max of `values` (at least one). */
export function spreadOf(values: number[]): Spread {
  if (!values.length) throw new Error("spreadOf needs at least one value");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { median, min: sorted[0], max: sorted.at(-1)!, values };
}

/** `0.512 (0.47–0.55)`, with `digits` decimals and an optional unit. */
export function formatSpread(spread: Spread, { digits = 3, unit = "" } = {}): string {
  const f = (value: number) => `${value.toFixed(digits)}${unit}`;
  return spread.values.length === 1
    ? f(spread.median)
    : `${f(spread.median)} (${f(spread.min)} to ${f(spread.max)})`;
}
