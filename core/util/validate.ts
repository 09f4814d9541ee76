/** Checks values against zod schemas, turning the first problem into a 400 that names the field. */

import type { z } from "zod";
import { GatewayError } from "../errors.ts";

/** Checks `value` against `schema` or throws 400 naming the first offending field. */
export function validate<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue.code === "unrecognized_keys") {
    // The field at fault is the unknown one, not the object that holds it.
    const path = [...issue.path, issue.keys[0]].join(".");
    throw new GatewayError(
      "invalid_request",
      400,
      `Unknown field '${path}'${
        issue.keys.length > 1 ? ` (and ${issue.keys.length - 1} more)` : ""
      }: ` +
        "leave it out",
      { param: path },
    );
  }
  const path = issue.path.join(".");
  throw new GatewayError(
    "invalid_request",
    400,
    path ? `Invalid value for '${path}': ${issue.message}` : `Invalid request: ${issue.message}`,
    { param: path || undefined },
  );
}
