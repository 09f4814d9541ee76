/** Amounts as the console's pages write them, for assertions on their HTML. */

import { consoleMoney } from "../../routes/console/money.tsx";
import { DEFAULT_MONEY_FORMAT, type MoneyFormat } from "../../core/util/money_format.ts";

/** The markup of `units` as a page shows it (default format: USD, 6 decimals, exact). */
export function shownAmount(units: number, format: MoneyFormat = DEFAULT_MONEY_FORMAT): string {
  return String(consoleMoney(format).amount(units));
}
