/** Checks an admin API error answer: its status and the `{error: {message, type, code}}` shape. */

import { assertEquals, assertOk } from "./assert.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Asserts that `answer` is an admin error with `status` and `code`; returns its message. */
export function assertAdminError(
  answer: { status: number; body: Json },
  status: number,
  code: string,
): string {
  assertEquals(answer.status, status, JSON.stringify(answer.body));
  const error = answer.body?.error;
  assertOk(error, `no error envelope in ${JSON.stringify(answer.body)}`);
  assertEquals(error.code, code, JSON.stringify(answer.body));
  assertOk(typeof error.message === "string" && error.message.length > 0, "empty message");
  return error.message;
}
