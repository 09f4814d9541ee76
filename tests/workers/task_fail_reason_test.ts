import { assertEquals, assertOk } from "../helpers/assert.ts";
import { taskFailReason } from "../../workers/task_fail_reason.ts";
import { GatewayError } from "../../core/errors.ts";
import { UpstreamAttemptError } from "../../core/upstream/attempt.ts";
import { UndeliverableImage } from "../../core/images/deliver_images.ts";

Deno.test("taskFailReason() keeps the gateway's own words", () => {
  const upstream = new UpstreamAttemptError("upstream answered 503: overloaded", {
    retryable: true,
  });
  assertEquals(taskFailReason(upstream, "task_1"), "upstream answered 503: overloaded");
  const refused = new GatewayError("invalid_request", 400, "duration must be 4 to 15");
  assertEquals(taskFailReason(refused, "task_1"), "duration must be 4 to 15");
  const image = new UndeliverableImage("the upstream's image is text/html, not an image");
  assertEquals(taskFailReason(image, "task_1"), image.message);
});

Deno.test("taskFailReason() says a runtime's error in a plain sentence, never its text", () => {
  const logged: string[] = [];
  const original = console.error;
  console.error = (line: string) => logged.push(line);
  try {
    const raw = new Deno.errors.NotFound(
      "No such file or directory (os error 2): open '/tmp/gateway-upload-x/video'",
    );
    const reason = taskFailReason(raw, "task_2");
    assertOk(!reason.includes("/tmp") && !reason.includes("os error"), reason);
    assertOk(reason.includes("internal error"), reason);
    assertEquals(logged.length, 1);
    assertOk(logged[0].includes("task_2") && logged[0].includes("gateway-upload-x"), logged[0]);
  } finally {
    console.error = original;
  }
});
