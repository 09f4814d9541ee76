import { assertEquals } from "../../helpers/assert.ts";
import { rerankCost, searchUnitsOf } from "../../../core/billing/rerank_price.ts";
import { moderationCost } from "../../../core/billing/moderation_price.ts";
import { moderationReceipt, rerankReceipt } from "../../../core/billing/receipt.ts";

const vip = { group: "vip", multiplier: 8_000 };

Deno.test("search units: a query with up to 100 documents is one", () => {
  assertEquals([1, 100, 101, 200, 201, 1000].map(searchUnitsOf), [1, 1, 2, 2, 3, 10]);
});

Deno.test("rerank cost: per search unit, or per million tokens, the tier applied once", () => {
  assertEquals(rerankCost({ per_search: 2_000 }, { search_units: 3, tokens: 0 }), 6_000);
  assertEquals(rerankCost({ per_search: 2_001 }, { search_units: 1, tokens: 0 }, vip), 1_601);
  assertEquals(rerankCost({ input: 50_000 }, { search_units: 1, tokens: 1_001 }), 51);
  assertEquals(rerankCost({ input: 50_000 }, { search_units: 1, tokens: 1_000 }, vip), 40);
});

Deno.test("rerank receipt: its formula recomputes its amount", () => {
  const search = rerankReceipt({ per_search: 2_000 }, {
    documents: 150,
    search_units: 2,
    tokens: 40,
  });
  assertEquals(search.formula, "2 search units × 2000 = 4000");
  assertEquals(search.units, { documents: 150, search_units: 2, input_tokens: 40 });
  const tokens = rerankReceipt(
    { input: 50_000 },
    { documents: 3, search_units: 1, tokens: 46 },
    vip,
  );
  assertEquals(tokens.formula, "ceil(46 tokens × 50000 × 0.8 (group vip) / 1000000) = 2");
  assertEquals(tokens.amount, 2);
  assertEquals(tokens.multipliers, { price_multiplier: 0.8 });
});

Deno.test("moderation: per request, free at 0, the tier applied", () => {
  assertEquals(moderationCost({ per_request: 0 }, vip), 0);
  assertEquals(moderationCost({ per_request: 301 }, vip), 241);
  const receipt = moderationReceipt({ per_request: 0 }, { inputs: 3 });
  assertEquals(receipt.formula, "1 request × 0 = 0");
  assertEquals(receipt.units, { requests: 1, inputs: 3 });
});
