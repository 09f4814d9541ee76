import { assertEquals } from "../../helpers/assert.ts";
import { textCost } from "../../../core/billing/text_price.ts";

Deno.test("textCost() charges input, cached input and output per million tokens", () => {
  const price = { input: 2_000_000, output: 8_000_000, cached_input: 500_000 };
  const cost = textCost(price, {
    input_tokens: 1_000,
    cached_input_tokens: 400,
    output_tokens: 100,
  });
  // 600 × 2 + 400 × 0.5 + 100 × 8 = 1200 + 200 + 800
  assertEquals(cost, 2_200);
});

Deno.test("textCost() rounds a fraction of a unit up", () => {
  assertEquals(
    textCost({ input: 1, output: 1 }, {
      input_tokens: 1,
      cached_input_tokens: 0,
      output_tokens: 0,
    }),
    1,
  );
  assertEquals(
    textCost({ input: 0, output: 0 }, {
      input_tokens: 9,
      cached_input_tokens: 0,
      output_tokens: 9,
    }),
    0,
  );
});

Deno.test("textCost() prices cached tokens at the input price when no cached price is set", () => {
  const cost = textCost({ input: 1_000_000, output: 0 }, {
    input_tokens: 100,
    cached_input_tokens: 100,
    output_tokens: 0,
  });
  assertEquals(cost, 100);
});

Deno.test("textCost() stays exact past 2^53 intermediate products", () => {
  const cost = textCost({ input: 999_999_999, output: 0 }, {
    input_tokens: 10_000_000,
    cached_input_tokens: 0,
    output_tokens: 0,
  });
  assertEquals(cost, 9_999_999_990);
});
