/**
 * Reading an upstream's model list against the simulators (which answer as the real APIs do):
 * every page followed, Gemini's non-generating models left out, a refused key said without the
 * key, and the types without a list said so.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { channelRecord } from "../../helpers/channel_record.ts";
import { fetchUpstreamModels, hasModelList } from "../../../routes/admin/upstream_models.ts";
import { startAnthropicUpstream } from "../../upstream/anthropic.ts";
import { startGeminiUpstream } from "../../upstream/gemini.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";

const signal = new AbortController().signal;
const many = Array.from({ length: 7 }, (_, index) => ({ id: `model-${index}` }));

function channelOf(fields: Partial<Channel>): Channel {
  return channelRecord("ch_test", { timeout_ms: 10_000, ...fields });
}

Deno.test("upstream models: OpenAI's one page, with the bearer key", async () => {
  await using upstream = startOpenAIChatUpstream();
  const result = await fetchUpstreamModels(
    channelOf({ base_url: upstream.baseUrl, keys: ["sk-upstream-test"] }),
    { signal },
  );
  assertEquals(result, {
    ok: true,
    models: [{ id: "gpt-4o-mini" }, { id: "gpt-4o" }, { id: "o4-mini" }],
  });
});

Deno.test("upstream models: Anthropic's pages followed by after_id, display names kept", async () => {
  await using upstream = startAnthropicUpstream({
    listedModels: many.map((model) => ({ ...model, label: model.id.toUpperCase() })),
    listedPageSize: 3,
  });
  const result = await fetchUpstreamModels(
    channelOf({ type: "anthropic", base_url: upstream.baseUrl, keys: ["sk-ant-upstream-test"] }),
    { signal },
  );
  assertEquals(result, {
    ok: true,
    models: many.map((model) => ({ ...model, label: model.id.toUpperCase() })),
  });
});

Deno.test("upstream models: Gemini's pages followed by pageToken, generate-content models only", async () => {
  await using upstream = startGeminiUpstream({
    listedModels: [...many, { id: "embedder", methods: ["embedContent"] }],
    listedPageSize: 2,
  });
  const result = await fetchUpstreamModels(
    channelOf({ type: "gemini", base_url: upstream.baseUrl, keys: ["gemini-upstream-test"] }),
    { signal },
  );
  assertEquals(result, { ok: true, models: many.map((model) => ({ ...model, label: model.id })) });
});

Deno.test("upstream models: a refused key is said with the upstream's status, never the key", async () => {
  await using upstream = startOpenAIChatUpstream();
  const result = await fetchUpstreamModels(
    channelOf({ base_url: upstream.baseUrl, keys: ["sk-wrong-key-0000"] }),
    { signal },
  );
  assertEquals(result.ok, false);
  if (result.ok) return;
  assertEquals(result.status, 401);
  assertOk(result.error.includes("credential was refused"), result.error);
  assertOk(!result.error.includes("sk-wrong-key-0000"), result.error);
});

Deno.test("upstream models: video types have no list", async () => {
  for (
    const [type, article] of [["ark-video", "An"], ["gateway-video", "A"]] as const
  ) {
    assertEquals(hasModelList({ type }), false);
    const result = await fetchUpstreamModels(channelOf({ type }), { signal });
    assertEquals(
      result.ok ? "" : result.error,
      `${article} ${type} upstream has no model list to read`,
    );
  }
  for (
    const type of [
      "openai",
      "openai-responses",
      "anthropic",
      "gemini",
      "openai-images",
      "vertex",
      "bedrock",
    ] as const
  ) {
    assertEquals(hasModelList({ type }), true, type);
  }
});
