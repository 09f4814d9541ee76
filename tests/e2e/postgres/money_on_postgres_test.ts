/**
 * Money on PostgreSQL: balances, holds, spend caps, the ledger and account wallets, by the same
 * e2e tests as on the embedded KV, with each gateway on a PostgreSQL store of its own.
 */

import { runOnPostgres } from "../../helpers/on_postgres.ts";

await runOnPostgres("money_on_postgres_test.ts", [
  new URL("../auth_and_balance_test.ts", import.meta.url),
  new URL("../spend_caps_test.ts", import.meta.url),
  new URL("../admin_ledger_test.ts", import.meta.url),
  new URL("../accounts/account_wallet_test.ts", import.meta.url),
]);
