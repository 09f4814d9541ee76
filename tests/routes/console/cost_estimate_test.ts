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

const entry = (kind: CatalogModel["kind"], price: CatalogModel["price"]): CatalogModel => ({
  ...text,
  id: kind,
  kind,
  price,
});

Deno.test("cost estimate: rerank per search unit of 100 documents, or per million tokens", () => {
  const search = costEstimate(entry("rerank", { per_search: 2_000 }), { documents: "150" });
  assertEquals("pricing" in search && search.pricing.formula, "2 search units × 2000 = 4000");
  const tokens = costEstimate(entry("rerank", { input: 50_000 }), { input_tokens: "1000" });
  assertEquals(
    "pricing" in tokens && tokens.pricing.formula,
    "ceil(1000 tokens × 50000 / 1000000) = 50",
  );
  const vip = { group: "vip", multiplier: 8_000 };
  const tiered = costEstimate(entry("rerank", { per_search: 2_001 }), { documents: "1" }, vip);
  assertEquals(
    "pricing" in tiered && tiered.pricing.formula,
    "ceil(1 search units × 2001 × 0.8 (group vip)) = 1601",
  );
});

Deno.test("cost estimate: moderation is one request at its price (free by default)", () => {
  const free = costEstimate(entry("moderation", { per_request: 0 }), {});
  assertEquals("pricing" in free && free.pricing.formula, "1 request × 0 = 0");
  const priced = costEstimate(entry("moderation", { per_request: 300 }), {});
  assertEquals("pricing" in priced && priced.pricing.amount, 300);
});

Deno.test("cost estimate: audio by its price unit (seconds, tokens or characters)", () => {
  const audio = (price: CatalogModel["price"]): CatalogModel => ({ ...text, kind: "audio", price });
  const seconds = costEstimate(audio({ per_second: 6_000 }), { seconds: "60" });
  assertEquals(
    "pricing" in seconds && seconds.pricing.formula,
    "ceil(6000 × 60000 ms input audio / 1000) = 360000",
  );
  const tokens = costEstimate(audio({ input: 2_500_000, output: 10_000_000 }), {
    input_tokens: "1000",
    output_tokens: "100",
  });
  assertEquals("pricing" in tokens && tokens.pricing.amount, 3_500);
  const characters = costEstimate(audio({ per_character: 15 }), { characters: "200" });
  assertEquals("pricing" in characters && characters.pricing.amount, 3_000);
  const bad = costEstimate(audio({ per_second: 1 }), { seconds: "x" });
  assertEquals("problem" in bad, true);
});

Deno.test("cost estimate: a speech model prices its input characters", () => {
  const speech: CatalogModel = { ...text, id: "tts", kind: "audio", price: { per_character: 15 } };
  const estimate = costEstimate(speech, { characters: "1000" });
  assertEquals("pricing" in estimate && estimate.pricing.formula, "1000 characters × 15 = 15000");
  const bad = costEstimate(speech, { characters: "ten" });
  assertEquals("problem" in bad && bad.problem.startsWith("Characters must be"), true);
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
