/**
 * Money typed in a console form, in currency with decimals, as the integer units the API takes
 * (1 unit = 0.000001 of the currency), converted exactly: digits, never floating point. Pure.
 */

/** Decimals a unit has: 1 unit = 0.000001. */
const DECIMALS = 6;

/** `text` (e.g. `0.15`) as units (150000), or the problem with it, naming the field by `label`. */
export function unitsOfCurrency(text: string, label: string): number | { problem: string } {
  const typed = text.trim();
  const shown = typed.slice(0, 40);
  if (typed.startsWith("-")) return { problem: `${label} must not be negative, not '${shown}'` };
  const match = typed.match(/^(\d*)(?:\.(\d*))?$/);
  if (!match || !/\d/.test(typed)) {
    return { problem: `${label} must be an amount like 0.15, not '${shown}'` };
  }
  const [, whole, fraction = ""] = match;
  if (fraction.length > DECIMALS) {
    return {
      problem: `${label} has more than ${DECIMALS} decimals: '${shown}' (the smallest amount is ` +
        `0.000001)`,
    };
  }
  const units = BigInt(whole || "0") * 10n ** BigInt(DECIMALS) +
    BigInt(fraction.padEnd(DECIMALS, "0"));
  if (units > BigInt(Number.MAX_SAFE_INTEGER)) {
    return { problem: `${label} is too large: '${shown}'` };
  }
  return Number(units);
}

/** Units as the shortest exact currency text a form shows: 150000 → `0.15`, 2000000 → `2`. */
export function currencyOfUnits(units: number): string {
  const whole = Math.floor(units / 10 ** DECIMALS);
  const fraction = String(units % 10 ** DECIMALS).padStart(DECIMALS, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/**
 * A money field of a form (currency, maybe negative: `-0.5` takes money back) as the units the
 * API takes; anything that is no amount is passed on as it was typed, so the API's own schema
 * refuses it with the message it gives to the same JSON.
 */
export function unitsOrText(text: string): number | string {
  const typed = text.trim();
  const negative = typed.startsWith("-");
  const units = unitsOfCurrency(negative ? typed.slice(1) : typed, "");
  if (typeof units !== "number") return typed;
  return negative ? -units : units;
}
