/** What upstream usage the gateway believes, and the reasoning part it keeps for receipts. */

import { assertEquals } from "../../helpers/assert.ts";
import { believableUsage, estimateWithinBounds } from "../../../core/billing/usage.ts";

const bounds = { maxInputTokens: 100, maxOutputTokens: 50, outputChars: 20 };

Deno.test("believableUsage() takes whole counts within what the request allowed", () => {
  assertEquals(
    believableUsage({ input_tokens: 10, cached_input_tokens: 4, output_tokens: 5 }, bounds),
    { input_tokens: 10, cached_input_tokens: 4, output_tokens: 5 },
  );
  assertEquals(
    believableUsage({ input_tokens: 10, output_tokens: 5 }, bounds)?.cached_input_tokens,
    0,
  );
  for (
    const usage of [
      { input_tokens: 10.5, output_tokens: 5 },
      { input_tokens: "10", output_tokens: 5 },
      { input_tokens: 10, output_tokens: -1 },
      { input_tokens: 10, cached_input_tokens: 11, output_tokens: 5 },
      { input_tokens: 0, output_tokens: 5 },
      { input_tokens: 10, output_tokens: 0 },
      { input_tokens: 100 * 4 + 10_001, output_tokens: 5 },
      { input_tokens: 10, output_tokens: 50 * 2 + 1_001 },
    ]
  ) {
    assertEquals(believableUsage(usage, bounds), undefined, JSON.stringify(usage));
  }
});

Deno.test("believableUsage() keeps reasoning tokens that can be a part of the output, and only those", () => {
  const usage = { input_tokens: 10, cached_input_tokens: 0, output_tokens: 30 };
  assertEquals(believableUsage({ ...usage, reasoning_tokens: 24 }, bounds), {
    ...usage,
    reasoning_tokens: 24,
  });
  assertEquals(believableUsage({ ...usage, reasoning_tokens: 30 }, bounds)?.reasoning_tokens, 30);
  // A reasoning count that cannot be true is left out; the usage itself is still believed.
  for (const reasoning_tokens of [31, -1, 2.5, "24", null]) {
    assertEquals(believableUsage({ ...usage, reasoning_tokens }, bounds), usage);
  }
});

Deno.test("estimateWithinBounds() holds the gateway's estimate to what the request allowed", () => {
  const bounds = { maxInputTokens: 40, maxOutputTokens: 50 };
  const estimate = { input_tokens: 30, cached_input_tokens: 0, output_tokens: 260 };
  assertEquals(estimateWithinBounds(estimate, bounds), { ...estimate, output_tokens: 50 });
  assertEquals(estimateWithinBounds({ ...estimate, output_tokens: 12 }, bounds), {
    ...estimate,
    output_tokens: 12,
  });
});
