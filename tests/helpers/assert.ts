/** Assertions from node:assert/strict under the names Deno tests usually use. */

import assert from "node:assert/strict";

/** Deep strict equality. */
export const assertEquals: <T>(
  actual: unknown,
  expected: T,
  message?: string,
) => asserts actual is T = assert.deepStrictEqual;
/** Throws unless `fn` throws. */
export const assertThrows: (fn: () => unknown, message?: string | Error) => void = assert.throws;
/** The value is truthy. */
export const assertOk: (value: unknown, message?: string) => asserts value = assert.ok;
/** Rejects unless the promise rejects. */
export const assertRejects: (fn: () => Promise<unknown>) => Promise<void> = assert.rejects;
