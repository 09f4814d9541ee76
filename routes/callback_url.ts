/**
 * The `callback_url` field of an image or video task request (JSON or multipart): taken out of
 * the request before validation, so it is never forwarded upstream nor listed as ignored.
 */

import { z } from "zod";
import { GatewayError, invalidRequest } from "../core/errors.ts";

/** The field's value when sent: a non-empty string, else a 400 naming it. */
export function callbackUrlOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "") {
    throw invalidRequest("callback_url must be an absolute http or https URL", "callback_url");
  }
  return value.trim();
}

/**
 * A task request's schema with `callback_url`, for the OpenAPI document: the route takes the
 * field out (callbackUrlOf) before the schema validates the rest.
 */
export function withCallbackUrl<T extends z.ZodObject>(schema: T) {
  return schema.extend({
    callback_url: z.string().optional().describe(
      "A task's own webhook receiver, an absolute public http or https URL: images only with " +
        "`X-Gateway-Async-Task: true`; the key's webhook endpoint must allow task callbacks " +
        "(docs/webhooks.md, callback_url)",
    ),
  });
}

/** The 400 for a callback_url on a request that makes no task. */
export function callbackNeedsTask(): GatewayError {
  return new GatewayError(
    "callback_url_not_allowed",
    400,
    "callback_url is for tasks only: send X-Gateway-Async-Task: true to make this request a task",
    { param: "callback_url" },
  );
}
