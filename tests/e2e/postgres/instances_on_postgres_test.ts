/**
 * Several gateway processes on one PostgreSQL store: a killed process's holds released once by
 * another instance, kill -9 under load (leases returned once, no request charged twice), admin writes and webhook deliveries shared between two, by the same tests as
 * on one KV file (each test's KV file path stands for one PostgreSQL store).
 */

import { runOnPostgres } from "../../helpers/on_postgres.ts";

await runOnPostgres("instances_on_postgres_test.ts", [
  new URL("../hardening/killed_process_test.ts", import.meta.url),
  new URL("../hardening/killed_under_load_test.ts", import.meta.url),
  new URL("../hardening/admin_writes_instances_test.ts", import.meta.url),
  new URL("../hardening/webhook_instances_test.ts", import.meta.url),
]);
