/**
 * The request log on PostgreSQL: its records by interface, and the sweeps (request-log
 * retention, media expiry, orphaned holds), by the same tests as on the embedded KV.
 */

import { runOnPostgres } from "../../helpers/on_postgres.ts";

await runOnPostgres("request_log_on_postgres_test.ts", [
  new URL("../request_log_interface_test.ts", import.meta.url),
  new URL("../../workers/sweeps_test.ts", import.meta.url),
]);
