import { assertEquals } from "../../helpers/assert.ts";
import { costEstimate } from "../../../routes/console/cost_estimate.ts";
import { DEFAULT_CATALOG } from "../../../core/channels/catalog.ts";
import type { CatalogModel } from "../../../core/channels/catalog.ts";

const text: CatalogModel = {
  id: "t",
  kind: "text",
  groups: ["default"],
  price: { input: 3_000_000, output: 15_000_000 },
  description: "",
  enabled: true,
  source: "admin",
  created_at: "2026-01-01T00:00:00Z",
};
const model = (id: string) => DEFAULT_CATALOG.find((entry) => entry.id === id)!;

Deno.test("cost estimate: text tokens at the per-million price, rounded up", () => {
  const estimate = costEstimate(text, { input_tokens: "1", output_tokens: "1" });
  assertEquals("pricing" in estimate && estimate.pricing.amount, 18);
  const empty = costEstimate(text, {});
  assertEquals("pricing" in empty && empty.pricing.amount, 0);
});

Deno.test("cost estimate: images × unit price; video seconds or a fixed task price", () => {
  const image = costEstimate(model("gen-image-2"), { images: "2" });
  assertEquals("pricing" in image && image.pricing.formula, "2 images × 40000 = 80000");
  const video = costEstimate(model("vid-2-480p"), { seconds: "4" });
  assertEquals("pricing" in video && video.pricing.amount, 200_000);
  const fixed = costEstimate(model("vid-2-cheap"), { seconds: "12" });
  assertEquals("pricing" in fixed && fixed.pricing.amount, 500_000);
});

Deno.test("cost estimate: a bad count is a problem naming the field", () => {
  const bad: Array<Record<string, string>> = [
    { input_tokens: "1.5" },
    { output_tokens: "-2" },
    { input_tokens: "1e3" },
  ];
  for (const fields of bad) {
    const estimate = costEstimate(text, fields);
    assertEquals("problem" in estimate, true, JSON.stringify(fields));
  }
  assertEquals(costEstimate(text, { input_tokens: "1", cached_input_tokens: "2" }), {
    problem: "Cached tokens are part of the input tokens: at most as many",
  });
});

Deno.test("cost estimate: an embedding model's input tokens at its per-million price, with tiers", () => {
  const embedding: CatalogModel = { ...text, id: "e", kind: "embedding", price: { input: 20_000 } };
  const estimate = costEstimate(embedding, { input_tokens: "1000", output_tokens: "999" });
  assertEquals(
    "pricing" in estimate && estimate.pricing.formula,
    "ceil(1000 input × 20000 / 1000000) = 20",
  );
  const vip = costEstimate(embedding, { input_tokens: "1000" }, { group: "vip", multiplier: 8000 });
  assertEquals("pricing" in vip && vip.pricing.amount, 16);
});
