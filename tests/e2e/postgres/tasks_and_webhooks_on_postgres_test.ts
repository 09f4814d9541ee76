/**
 * Tasks and webhooks on PostgreSQL, where there are no KV queues: image and video tasks run by
 * the polling task worker, and webhook deliveries, by the same e2e tests as on the embedded KV.
 */

import { runOnPostgres } from "../../helpers/on_postgres.ts";

await runOnPostgres("tasks_and_webhooks_on_postgres_test.ts", [
  new URL("../admin_tasks_test.ts", import.meta.url),
  new URL("../video_test.ts", import.meta.url),
  new URL("../webhooks_test.ts", import.meta.url),
]);
