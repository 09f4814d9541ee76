import { assertEquals } from "../../helpers/assert.ts";
import { shownProgress } from "../../../routes/console/task_progress.ts";

Deno.test("task progress: a failed task shows none, whatever the upstream reported", () => {
  assertEquals(shownProgress({ status: "failed", progress: "100%" }), null);
  assertEquals(shownProgress({ status: "in_progress", progress: "40%" }), "40%");
  assertEquals(shownProgress({ status: "succeeded", progress: "100%" }), "100%");
});
