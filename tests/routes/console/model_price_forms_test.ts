import { assertEquals, assertOk, assertThrows } from "../../helpers/assert.ts";
import {
  formOfPrice,
  MODEL_KINDS,
  plansOf,
  priceFormCss,
  priceOfForm,
} from "../../../routes/console/model_price_forms.ts";
import { modelInputSchema } from "../../../core/channels/catalog.ts";

Deno.test("model price forms: every kind of the catalog has a price form", () => {
  for (const kind of MODEL_KINDS) assertOk(plansOf(kind).length > 0, kind);
  for (const kind of MODEL_KINDS) assertOk(priceFormCss().includes(`#price-${kind}{`), kind);
});

Deno.test("model price forms: a text price in currency is the catalog's price in units", () => {
  const price = priceOfForm("text", { "text.input": "0.15", "text.output": "0.60" });
  assertEquals(price, { input: 150_000, output: 600_000 });
  assertEquals(
    priceOfForm("text", { "text.input": "1", "text.cached_input": "0.5", "text.output": "2" }),
    { input: 1_000_000, cached_input: 500_000, output: 2_000_000 },
  );
  assertOk(
    modelInputSchema.safeParse({ kind: "text", price }).success,
    "the schema takes it",
  );
});

Deno.test("model price forms: image tiers by size and quality; video per second or per task", () => {
  const image = priceOfForm("image", {
    "image.per_image": "0.04",
    "image.tier_size.0": "1024x1024",
    "image.tier_quality.0": "high",
    "image.tier_price.0": "0.08",
    "image.tier_size.1": "",
    "image.tier_quality.1": "low",
    "image.tier_price.1": "0.01",
    "image.tier_size.2": "",
    "image.tier_quality.2": "",
    "image.tier_price.2": "",
  });
  assertEquals(image, {
    per_image: 40_000,
    tiers: { "1024x1024/high": 80_000, "*/low": 10_000 },
  });
  assertEquals(formOfPrice("image", image), {
    kind: "image",
    "image.plan": "per_image",
    "image.per_image": "0.04",
    "image.tier_size.0": "1024x1024",
    "image.tier_quality.0": "high",
    "image.tier_price.0": "0.08",
    "image.tier_size.1": "",
    "image.tier_quality.1": "low",
    "image.tier_price.1": "0.01",
  });
  assertEquals(
    priceOfForm("video", { "video.plan": "per_second", "video.per_second": "0.1" }),
    { per_second: 100_000 },
  );
  const task = priceOfForm("video", {
    "video.plan": "per_task",
    "video.per_second": "ignored: not the chosen plan",
    "video.per_task": "0.5",
    "video.failure_refund_percent": "50",
  });
  assertEquals(task, { per_task: 500_000, failure_refund_percent: 50 });
  assertEquals(formOfPrice("video", task), {
    kind: "video",
    "video.plan": "per_task",
    "video.per_task": "0.5",
    "video.failure_refund_percent": "50",
  });
});

Deno.test("model price forms: bad input is a 400 naming the field", () => {
  const refused = (kind: string, fields: Record<string, string>, part: string) => {
    assertThrows(() => priceOfForm(kind, fields));
    let error: unknown;
    try {
      priceOfForm(kind, fields);
    } catch (thrown) {
      error = thrown;
    }
    assertEquals((error as { status: number }).status, 400);
    assertOk(String(error).includes(part), `${String(error)} names ${part}`);
  };
  refused("text", { "text.input": "0.1234567", "text.output": "1" }, "more than 6 decimals");
  refused("text", { "text.input": "-1", "text.output": "1" }, "must not be negative");
  refused("text", { "text.input": "cheap", "text.output": "1" }, "Input (per 1M tokens)");
  refused("text", { "text.input": "1" }, "Output (per 1M tokens) is required");
  refused("sound", {}, "The kind must be one of text, image, video");
  refused("video", { "video.plan": "per_frame" }, "Per second or Per task");
  refused("video", {
    "video.plan": "per_task",
    "video.per_task": "1",
    "video.failure_refund_percent": "101",
  }, "whole percent");
  refused(
    "image",
    { "image.per_image": "1", "image.tier_size.0": "", "image.tier_price.0": "1" },
    "names a size, a quality",
  );
  refused("image", {
    "image.per_image": "1",
    "image.tier_size.0": "a/b",
    "image.tier_price.0": "1",
  }, "without spaces or '/'");
  refused("image", {
    "image.per_image": "1",
    "image.tier_size.0": "512x512",
    "image.tier_price.0": "",
  }, "tier 512x512/*");
});
