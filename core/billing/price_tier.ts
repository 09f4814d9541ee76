/**
 * Price tiers: a group's price multiplier, kept as an integer count of ten-thousandths (×0.8 is
 * 8000, ×1 is 10000), so that a cost is base × multiplier computed in integers and rounded up to
 * a whole unit once, with no float error. Pure.
 */

/** The multiplier of a group, as pricing applies it. */
export interface PriceTier {
  group: string;
  /** Ten-thousandths: 10000 is ×1. */
  multiplier: number;
}

/** ×1 in ten-thousandths. */
export const BASE_MULTIPLIER = 10_000;
/** The largest multiplier a group may carry (×10). */
export const MAX_MULTIPLIER = 10 * BASE_MULTIPLIER;

/** Whether `tier` leaves prices as they are (absent, or ×1). */
export function isBaseTier(tier: PriceTier | undefined): boolean {
  return !tier || tier.multiplier === BASE_MULTIPLIER;
}

/**
 * `value` (a JSON number) in ten-thousandths, or why it cannot be a multiplier: it must be
 * greater than 0, at most 10, with at most 4 decimal places. The number's shortest decimal form
 * is read, so 1.1 is 11000 exactly (1.1 × 10000 in floats is 11000.000000000002).
 */
export function multiplierFromNumber(value: unknown): number | { problem: string } {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    return { problem: "must be a number" };
  }
  const match = String(value).match(/^(\d+)(?:\.(\d{1,4}))?$/);
  if (!match) {
    return { problem: "must be greater than 0 with at most 4 decimal places (e.g. 0.8 or 1.25)" };
  }
  const tenThousandths = Number(match[1]) * BASE_MULTIPLIER +
    Number((match[2] ?? "").padEnd(4, "0"));
  if (tenThousandths <= 0) return { problem: "must be greater than 0" };
  if (tenThousandths > MAX_MULTIPLIER) return { problem: "must be at most 10" };
  return tenThousandths;
}

/** Ten-thousandths as the decimal a person reads: 8000 → `0.8`, 12500 → `1.25`. */
export function multiplierText(tenThousandths: number): string {
  return decimalText(BigInt(tenThousandths), 4);
}

/** `value` / 10^`places` as an exact decimal without trailing zeros. */
function decimalText(value: bigint, places: number): string {
  const scale = 10n ** BigInt(places);
  const sign = value < 0n ? "-" : "";
  const abs = value < 0n ? -value : value;
  const fraction = String(abs % scale).padStart(places, "0").replace(/0+$/, "");
  return `${sign}${abs / scale}${fraction ? `.${fraction}` : ""}`;
}

/**
 * ceil(`numerator` × multiplier / (`denominator` × 10000)): the base amount numerator /
 * denominator (not yet rounded) at `tier`, rounded up to a whole unit once.
 */
export function tieredCeil(numerator: bigint, denominator: bigint, tier?: PriceTier): number {
  const multiplier = BigInt(tier?.multiplier ?? BASE_MULTIPLIER);
  const top = numerator * multiplier;
  const bottom = denominator * BigInt(BASE_MULTIPLIER);
  return Number((top + bottom - 1n) / bottom);
}

/** A unit price at `tier`, exactly, as text: 40000 at ×0.8 → `32000`, 3 at ×0.8 → `2.4`. */
export function tieredPriceText(units: number, tier?: PriceTier): string {
  return decimalText(BigInt(units) * BigInt(tier?.multiplier ?? BASE_MULTIPLIER), 4);
}

/** The formula's factor for `tier`: ` × 0.8 (group vip)`, or nothing at ×1. */
export function tierFactorText(tier?: PriceTier): string {
  return isBaseTier(tier) ? "" : ` × ${multiplierText(tier!.multiplier)} (group ${tier!.group})`;
}

/** The receipt's `multipliers` entry for `tier`: none at ×1. */
export function tierMultipliers(tier?: PriceTier): Record<string, number> {
  return isBaseTier(tier) ? {} : { price_multiplier: tier!.multiplier / BASE_MULTIPLIER };
}

/**
 * A catalog price as a caller at `tier` pays it: every number of `price` (per million tokens, per
 * image, per second, per task; image tiers too) scaled by the multiplier, exactly (a decimal
 * number; costs are still rounded up once per request). Fields that are not prices stay.
 */
export function tieredPrice<T>(price: T, tier?: PriceTier): T {
  if (isBaseTier(tier)) return price;
  const scale = (value: unknown, name: string): unknown => {
    if (
      typeof value === "number" && Number.isSafeInteger(value) && name !== "failure_refund_percent"
    ) {
      return Number(tieredPriceText(value, tier));
    }
    if (value && typeof value === "object" && !Array.isArray(value)) {
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) => [key, scale(inner, key)]),
      );
    }
    return value;
  };
  return scale(price, "") as T;
}
