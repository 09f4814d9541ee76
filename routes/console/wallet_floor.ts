/** How the member pages say a wallet's floor: the lowest its balance may go. */

import { formatUnits } from "./snippets.ts";

export function floorText(account: { unlimited: boolean; credit_limit: number }): string {
  return account.unlimited ? "none (unlimited)" : formatUnits(-account.credit_limit);
}
