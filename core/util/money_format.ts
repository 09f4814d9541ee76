/**
 * The console's money format and its checks: an ISO 4217 currency code and a display precision
 * of 2-6 decimals. Pure; the setting itself lives in core/console/money_format.ts.
 */

export interface MoneyFormat {
  /** ISO 4217 code, upper case: USD, EUR, CNY. */
  currency: string;
  /** Decimals amounts are shown with (2-6); prices always show every decimal they have. */
  decimals: number;
}

export const MIN_MONEY_DECIMALS = 2;
export const MAX_MONEY_DECIMALS = 6;

export const DEFAULT_MONEY_FORMAT: MoneyFormat = { currency: "USD", decimals: 6 };

/** The current ISO 4217 codes this runtime knows (its symbols come from the same data). */
const KNOWN_CURRENCIES = new Set(Intl.supportedValuesOf("currency"));

/** Why `code` is no currency code, or undefined when it is one. */
export function currencyProblem(code: string): string | undefined {
  if (!/^[A-Z]{3}$/.test(code)) {
    return `must be an ISO 4217 currency code of 3 capital letters such as USD, EUR or CNY, ` +
      `not '${code.slice(0, 20)}'`;
  }
  if (!KNOWN_CURRENCIES.has(code)) return `'${code}' is no ISO 4217 currency code`;
  return undefined;
}

/** Why `decimals` is no display precision, or undefined when it is one. */
export function decimalsProblem(decimals: number): string | undefined {
  return Number.isInteger(decimals) && decimals >= MIN_MONEY_DECIMALS &&
      decimals <= MAX_MONEY_DECIMALS
    ? undefined
    : `must be a whole number from ${MIN_MONEY_DECIMALS} to ${MAX_MONEY_DECIMALS}, not ${decimals}`;
}
