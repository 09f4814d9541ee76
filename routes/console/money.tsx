/**
 * The one money formatter of the console pages: every amount and price a page shows goes through
 * the request's ConsoleMoney, made from the operator's money format (docs/console.md, "Money").
 */

import type { MiddlewareHandler } from "hono";
import type { Child } from "hono/jsx";
import type { PriceTier } from "../../core/billing/price_tier.ts";
import type { MoneyFormat } from "../../core/util/money_format.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { ConsoleEnv } from "./console_env.ts";
import { moneyText, ofTieredUnits, ofUnits, priceMoneyText } from "./money_text.ts";

export interface ConsoleMoney {
  format: MoneyFormat;
  /** An amount of `units` for a page: rounded to the precision, the exact amount in its title. */
  amount(units: number): Child;
  /** The same amount as plain text (rounded), for text that cannot carry a title. */
  text(units: number): string;
  /** The amount rounded, and exactly when that differs: `$0.01 (exactly $0.00456)` (tooltips). */
  full(units: number): string;
  /** A price of `units` (× `tier`), exact: a rate is never rounded. */
  price(units: number, tier?: PriceTier): string;
}

/** The formatter of `format`. */
export function consoleMoney(format: MoneyFormat): ConsoleMoney {
  return {
    format,
    amount(units) {
      const shown = moneyText(ofUnits(units), format);
      return shown.rounded
        ? <span class="money" title={`exactly ${shown.exact}`}>{shown.text}</span>
        : <span class="money">{shown.text}</span>;
    },
    text: (units) => moneyText(ofUnits(units), format).text,
    full(units) {
      const shown = moneyText(ofUnits(units), format);
      return shown.rounded ? `${shown.text} (exactly ${shown.exact})` : shown.text;
    },
    price: (units, tier) => priceMoneyText(ofTieredUnits(units, tier), format),
  };
}

/** Reads the money format once per request, as the `money` variable of the pages. */
export function readMoneyFormat(gateway: Gateway): MiddlewareHandler<ConsoleEnv> {
  return async function moneyFormat(c, next) {
    c.set("money", consoleMoney(await gateway.moneyFormat.get()));
    await next();
  };
}
