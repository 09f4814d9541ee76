/**
 * What a task's `fail_reason` says, which its owner reads through the status routes: the
 * gateway's own words for the failures it names (an upstream's answer, already redacted; a refusal;
 * an undeliverable result), and a plain sentence for anything else — a runtime's or a library's text
 * may name files or internals, so that goes to the log with the task id instead.
 */

import { GatewayError } from "../core/errors.ts";
import { UpstreamAttemptError } from "../core/upstream/attempt.ts";
import { UndeliverableImage } from "../core/images/deliver_images.ts";

export function taskFailReason(error: unknown, taskId: string): string {
  if (
    error instanceof UpstreamAttemptError || error instanceof GatewayError ||
    error instanceof UndeliverableImage
  ) {
    return error.message;
  }
  console.error(JSON.stringify({
    msg: "task run failed",
    task_id: taskId,
    error: error instanceof Error ? error.stack : String(error),
  }));
  return "the gateway failed while running the task (an internal error; it was logged)";
}
