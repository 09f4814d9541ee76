/** The `Idempotency-Key` header of task submissions (video tasks, async image tasks). */

import { invalidRequest } from "../core/errors.ts";

/** The longest Idempotency-Key accepted. */
export const MAX_IDEMPOTENCY_KEY_CHARS = 255;

/** The header's key; undefined when absent or empty; 400 naming the header when too long. */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined || header === "") return undefined;
  if (header.length > MAX_IDEMPOTENCY_KEY_CHARS) {
    throw invalidRequest(
      `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY_CHARS} characters`,
      "Idempotency-Key",
    );
  }
  return header;
}
