/**
 * Money as the console writes it, in the operator's currency and precision (MoneyFormat). Pure,
 * exact (BigInt digits, never floating point), and the only place amounts become text:
 * - an amount (a balance, a cost, a ledger entry) is rounded half away from zero to the precision;
 *   a non-zero amount too small to show is `< $0.01` (`> -$0.01`), never `$0.00`; the exact
 *   amount goes with it (the pages put it in a title);
 * - a price is a rate that multiplies, so it is never rounded: at least the precision, and every
 *   further decimal it has (`$0.000015 per character` at 2 decimals).
 */

import { BASE_MULTIPLIER, type PriceTier } from "../../core/billing/price_tier.ts";
import type { MoneyFormat } from "../../core/util/money_format.ts";

/** An exact amount of the currency: `scaled` / 10^`scale`. */
export interface ExactMoney {
  scaled: bigint;
  scale: number;
}

/** Decimals of a unit: 1 unit = 0.000001 of the currency. */
const UNIT_SCALE = 6;
/** Decimals of a tier's multiplier (ten-thousandths). */
const MULTIPLIER_SCALE = 4;

/** `units` as an exact amount. */
export const ofUnits = (units: number): ExactMoney => ({
  scaled: BigInt(units),
  scale: UNIT_SCALE,
});

/** `units` × `tier`'s multiplier, exactly (3 units × 0.8 = 0.0000024). */
export const ofTieredUnits = (units: number, tier?: PriceTier): ExactMoney => ({
  scaled: BigInt(units) * BigInt(tier?.multiplier ?? BASE_MULTIPLIER),
  scale: UNIT_SCALE + MULTIPLIER_SCALE,
});

const symbols = new Map<string, string>();

/** What goes before the digits: `$`, `€`, `CN¥`; a code-like symbol gets a space (`CHF 1.50`). */
export function currencyPrefix(currency: string): string {
  let symbol = symbols.get(currency);
  if (symbol === undefined) {
    symbol = new Intl.NumberFormat("en", { style: "currency", currency }).formatToParts(0)
      .find((part) => part.type === "currency")?.value ?? currency;
    symbols.set(currency, symbol);
  }
  return /\p{L}$/u.test(symbol) ? `${symbol} ` : symbol;
}

function grouped(whole: bigint): string {
  return String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** `abs` / 10^`scale` with exactly `decimals` decimals, rounded half away from zero. */
function fixedDigits(
  abs: bigint,
  scale: number,
  decimals: number,
): { whole: bigint; fraction: string } {
  const shown = scale > decimals
    ? (abs + 5n * 10n ** BigInt(scale - decimals - 1)) / 10n ** BigInt(scale - decimals)
    : abs * 10n ** BigInt(decimals - scale);
  const step = 10n ** BigInt(decimals);
  return { whole: shown / step, fraction: String(shown % step).padStart(decimals, "0") };
}

/** `abs` / 10^`scale` with at least `decimals` decimals and every further one it has. */
function exactDigits(
  abs: bigint,
  scale: number,
  decimals: number,
): { whole: bigint; fraction: string } {
  const step = 10n ** BigInt(scale);
  const all = String(abs % step).padStart(scale, "0");
  const kept = all.replace(/0+$/, "");
  return {
    whole: abs / step,
    fraction: kept.padEnd(decimals, "0").slice(0, Math.max(decimals, kept.length)),
  };
}

function written(
  negative: boolean,
  prefix: string,
  { whole, fraction }: { whole: bigint; fraction: string },
): string {
  return `${negative ? "-" : ""}${prefix}${grouped(whole)}${fraction ? `.${fraction}` : ""}`;
}

/** An amount as shown, and exactly. */
export interface MoneyText {
  /** Rounded to the precision: `$1.23`, `< $0.01`. */
  text: string;
  /** Every decimal it has (at least the precision): `$1.234567`. */
  exact: string;
  /** Whether `text` differs from `exact`. */
  rounded: boolean;
}

/** An amount in `format`: rounded to its precision, with the exact amount beside. */
export function moneyText(amount: ExactMoney, format: MoneyFormat): MoneyText {
  const negative = amount.scaled < 0n;
  const abs = negative ? -amount.scaled : amount.scaled;
  const prefix = currencyPrefix(format.currency);
  const exact = written(negative, prefix, exactDigits(abs, amount.scale, format.decimals));
  const digits = fixedDigits(abs, amount.scale, format.decimals);
  if (abs > 0n && digits.whole === 0n && /^0*$/.test(digits.fraction)) {
    const smallest = `${prefix}0.${"1".padStart(format.decimals, "0")}`;
    return { text: negative ? `> -${smallest}` : `< ${smallest}`, exact, rounded: true };
  }
  const text = written(negative, prefix, digits);
  return { text, exact, rounded: text !== exact };
}

/** A price in `format`: exact, never rounded (at least the precision, more when it has more). */
export function priceMoneyText(amount: ExactMoney, format: MoneyFormat): string {
  return moneyText(amount, format).exact;
}
