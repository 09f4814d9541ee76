/**
 * The Anthropic-shaped model list carries every field of the SDK's `ModelInfo`: `max_input_tokens`
 * and `max_tokens` from the catalog's `context_window` and `max_output_tokens` where it has them,
 * null where it does not. Driven by @anthropic-ai/sdk 0.x and 1.x.
 */

import Anthropic from "@anthropic-ai/sdk";
import Anthropic1 from "@anthropic-ai/sdk1";
import { assertEquals } from "../helpers/assert.ts";
import { serverTest, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import { MODEL_OF, setupText } from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The fields of `ModelInfo` in @anthropic-ai/sdk 0.137 and 1.12 (resources/models.d.ts). */
const MODEL_INFO_FIELDS = [
  "capabilities",
  "created_at",
  "deprecated_at",
  "display_name",
  "id",
  "lifecycle",
  "line",
  "max_input_tokens",
  "max_tokens",
  "retires_at",
  "type",
];

Deno.test(
  "Anthropic model list: max_input_tokens and max_tokens from the catalog, null where unknown",
  serverTest,
  async () => {
    await using s = await setupText();
    await s.gw.putModel(MODEL_OF.openai, {
      kind: "text",
      price: TEST_TEXT_PRICE,
      context_window: 200_000,
      max_output_tokens: 64_000,
    });
    await s.gw.putModel(MODEL_OF.gemini, { kind: "text", price: TEST_TEXT_PRICE });
    for (
      const client of [
        new Anthropic({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 }),
        new Anthropic1({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 }) as unknown as Anthropic,
      ]
    ) {
      const listed: Json[] = [];
      for await (const model of client.models.list()) listed.push(model);
      for (const model of listed) assertEquals(Object.keys(model).sort(), MODEL_INFO_FIELDS);
      const byId = new Map(listed.map((model) => [model.id, model]));
      const limits = (id: string) => {
        const { max_input_tokens, max_tokens } = byId.get(id);
        return { max_input_tokens, max_tokens };
      };
      assertEquals(limits(MODEL_OF.openai), { max_input_tokens: 200_000, max_tokens: 64_000 });
      // setupText gives its models max_output_tokens 2048 and no context window.
      assertEquals(limits(MODEL_OF.anthropic), { max_input_tokens: null, max_tokens: 2048 });
      assertEquals(limits(MODEL_OF.gemini), { max_input_tokens: null, max_tokens: null });
      const one = await client.models.retrieve(MODEL_OF.openai);
      assertEquals(one.max_input_tokens, 200_000);
      assertEquals(one.max_tokens, 64_000);
      assertEquals(one.lifecycle, "active");
      assertEquals(one.capabilities, null);
    }
  },
);
