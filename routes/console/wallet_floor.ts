/** How the member pages say a wallet's floor: the lowest its balance may go. */

import type { Child } from "hono/jsx";
import type { ConsoleMoney } from "./money.tsx";

export function floorText(
  account: { unlimited: boolean; credit_limit: number },
  money: ConsoleMoney,
): Child {
  return account.unlimited ? "none (unlimited)" : money.amount(-account.credit_limit);
}
