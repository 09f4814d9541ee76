/** Assertions from node:assert/strict under the names Deno tests usually use. */

import assert from "node:assert/strict";

/** Deep strict equality. */
export function assertEquals<T>(
  actual: unknown,
  expected: T,
  message?: string,
): asserts actual is T {
  assert.deepStrictEqual(actual, expected, message === undefined ? undefined : new Error(message));
}

/** Throws unless `fn` throws. */
export function assertThrows(fn: () => unknown): void {
  assert.throws(fn);
}

/** The value is truthy. */
export function assertOk(value: unknown, message?: string): asserts value {
  assert.ok(value, message === undefined ? undefined : new Error(message));
}

/** Rejects unless the promise returned by `fn` rejects. */
export async function assertRejects(fn: () => Promise<unknown>): Promise<void> {
  await assert.rejects(fn);
}
