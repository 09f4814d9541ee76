/**
 * Video tasks on PostgreSQL, polled (no queues): 150 side by side, two gateway processes refunding
 * each failed task once, and a restart after a refund refunding nothing more; the same tests as on
 * the embedded KV (its 30-second kill test is left to the KV run).
 */

import { runOnPostgres } from "../../helpers/on_postgres.ts";

await runOnPostgres(
  "video_tasks_on_postgres_test.ts",
  [new URL("../video_tasks_test.ts", import.meta.url)],
  { only: /150 tasks|two gateway processes|killed right after the refund/ },
);
