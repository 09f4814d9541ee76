/**
 * The quirks of OpenAI-compatible houses (docs/providers.md), each against a simulator that has
 * it: DeepSeek's `reasoning_content` (unasked, on deepseek-reasoner) read as thinking, stream and
 * not, through chat completions and Anthropic messages; a local server (Ollama, vLLM) on a
 * channel with no upstream key, called with no Authorization header; a channel without keys
 * refused on types that need one; Mistral, which refuses `stream_options` and puts usage in
 * the finish chunk unasked (`send_stream_options: false`).
 */

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, startTestGateway, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import { startOpenAIChatUpstream } from "../upstream/openai_chat.ts";

async function setup(upstreamOptions: Parameters<typeof startOpenAIChatUpstream>[0]) {
  await using stack = new AsyncDisposableStack();
  const upstream = stack.use(startOpenAIChatUpstream(upstreamOptions));
  const gw = stack.use(await startTestGateway());
  await gw.putModel("house-model", { kind: "text", price: TEST_TEXT_PRICE });
  const { id, key } = await gw.createKey({ balance: 10_000_000 });
  const owned = stack.move();
  const close = () => owned.disposeAsync();
  return {
    upstream,
    gw,
    keyId: id,
    openai: new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 }),
    close,
    [Symbol.asyncDispose]: close,
  };
}

Deno.test(
  "DeepSeek preset: reasoning_content the client never asked for is read as thinking, stream and not",
  serverTest,
  async () => {
    await using s = await setup({ alwaysReasons: true, keys: ["sk-deepseek"] });
    await s.gw.addChannel({
      name: "deepseek",
      base_url: s.upstream.baseUrl,
      keys: ["sk-deepseek"],
      models: ["house-model"],
      model_map: { "house-model": "deepseek-reasoner" },
    });
    const chat = await s.openai.chat.completions.create({
      model: "house-model",
      messages: [{ role: "user", content: "why" }],
    });
    const message = chat.choices[0].message as { content: string; reasoning_content?: string };
    assertEquals([message.content, message.reasoning_content], ["Echo: why", "Considering: why"]);

    const answer = await s.anthropic.messages.create({
      model: "house-model",
      max_tokens: 512,
      messages: [{ role: "user", content: "think" }],
    });
    const thinking = answer.content.find((block) => block.type === "thinking");
    assertEquals(thinking?.type === "thinking" && thinking.thinking, "Considering: think");
    const text = answer.content.find((block) => block.type === "text");
    assertEquals(text?.type === "text" && text.text, "Echo: think");

    const stream = s.anthropic.messages.stream({
      model: "house-model",
      max_tokens: 512,
      messages: [{ role: "user", content: "stream it" }],
    });
    let thought = "";
    for await (const event of stream) {
      if (event.type === "content_block_delta" && event.delta.type === "thinking_delta") {
        thought += event.delta.thinking;
      }
    }
    assertEquals(thought, "Considering: stream it");
    const final = await stream.finalMessage();
    assertOk(final.usage.output_tokens > 0);
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);

Deno.test(
  "Ollama and vLLM presets: a channel with no upstream key calls with no Authorization header, and its Test passes",
  serverTest,
  async () => {
    await using s = await setup({ keyless: true });
    const created = await s.gw.admin("POST", "/admin/channels", {
      name: "ollama",
      type: "openai",
      base_url: s.upstream.baseUrl,
      keys: [],
      models: ["house-model"],
      model_map: { "house-model": "llama3.2" },
    });
    assertEquals(created.status, 201, JSON.stringify(created.body));
    assertEquals([created.body.key_count, created.body.keys], [0, []]);
    const answer = await s.openai.chat.completions.create({
      model: "house-model",
      messages: [{ role: "user", content: "local" }],
    });
    assertEquals(answer.choices[0].message.content, "Echo: local");
    const stream = await s.openai.chat.completions.create({
      model: "house-model",
      stream: true,
      messages: [{ role: "user", content: "local stream" }],
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    assertEquals(text, "Echo: local stream");
    const tested = await s.gw.admin("POST", `/admin/channels/${created.body.id}/test`, {});
    assertEquals(tested.body.ok, true, JSON.stringify(tested.body));
    assertOk(s.upstream.requests.length >= 3);
    for (const request of s.upstream.requests) assertEquals(request.authorization, null);
    await s.gw.assertLedgerInvariant(s.keyId);

    // Keys can be given later, and taken away again with `keys: []`.
    const keyed = await s.gw.admin("PATCH", `/admin/channels/${created.body.id}`, {
      add_keys: ["sk-now-keyed"],
    });
    assertEquals(keyed.body.key_count, 1);
    const cleared = await s.gw.admin("PATCH", `/admin/channels/${created.body.id}`, { keys: [] });
    assertEquals([cleared.status, cleared.body.key_count], [200, 0]);
  },
);

Deno.test(
  "a channel without keys is refused (400, no channel made) on types whose upstream always takes one",
  serverTest,
  async () => {
    await using s = await setup({});
    for (const type of ["anthropic", "gemini", "azure-openai"]) {
      const { status, body } = await s.gw.admin("POST", "/admin/channels", {
        name: "keyless",
        type,
        base_url: "http://127.0.0.1:9",
        api_version: type === "azure-openai" ? "2024-10-21" : undefined,
        keys: [],
        models: ["house-model"],
      });
      assertEquals([status, body.error.param], [400, "keys"], JSON.stringify(body));
    }
    const channel = await s.gw.addChannel({
      type: "anthropic",
      base_url: "http://127.0.0.1:9",
      keys: ["sk-ant"],
      models: ["house-model"],
    });
    const cleared = await s.gw.admin("PATCH", `/admin/channels/${channel.id}`, { keys: [] });
    assertEquals([cleared.status, cleared.body.error.param], [400, "keys"]);
    assertEquals((await s.gw.admin("GET", "/admin/channels")).body.data.length, 1);
  },
);

Deno.test(
  "Mistral preset: send_stream_options false leaves stream_options out (Mistral refuses it) and bills the usage of the finish chunk",
  serverTest,
  async () => {
    await using s = await setup({ mistral: true, keys: ["mistral-key"] });
    const channel = await s.gw.addChannel({
      name: "mistral",
      base_url: s.upstream.baseUrl,
      keys: ["mistral-key"],
      models: ["house-model"],
      model_map: { "house-model": "mistral-large-latest" },
    });
    // As today's openai channel asks: usage through stream_options, which Mistral refuses.
    const refused = await s.openai.chat.completions.create({
      model: "house-model",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    }).catch((error) => error);
    assertEquals(refused.status, 422);

    const patched = await s.gw.admin("PATCH", `/admin/channels/${channel.id}`, {
      send_stream_options: false,
    });
    assertEquals(patched.status, 200, JSON.stringify(patched.body));
    await s.gw.settle();
    const before = await s.gw.balance(s.keyId);
    const stream = await s.openai.chat.completions.create({
      model: "house-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "bonjour" }],
    });
    let text = "";
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      usage = chunk.usage ?? usage;
    }
    assertEquals(text, "Echo: bonjour");
    assertEquals(s.upstream.requests.at(-1)!.body.stream_options, undefined);
    assertOk(usage && usage.completion_tokens > 0);
    const cost = Math.ceil(usage!.prompt_tokens * 1 + usage!.completion_tokens * 2);
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), before - cost);

    const wrongType = await s.gw.admin("POST", "/admin/channels", {
      name: "x",
      type: "anthropic",
      base_url: "http://127.0.0.1:9",
      keys: ["k"],
      models: ["house-model"],
      send_stream_options: false,
    });
    assertEquals([wrongType.status, wrongType.body.error.param], [400, "send_stream_options"]);
  },
);

Deno.test(
  "OpenRouter preset: reasoning in `reasoning` read as thinking, and SSE comment lines in streams skipped",
  serverTest,
  async () => {
    await using s = await setup({ openrouter: true, keys: ["sk-or"] });
    await s.gw.addChannel({
      name: "openrouter",
      base_url: s.upstream.baseUrl,
      keys: ["sk-or"],
      models: ["house-model"],
      model_map: { "house-model": "anthropic/claude-sonnet-4.5" },
    });
    const thinking = { type: "enabled" as const, budget_tokens: 1024 };
    const answer = await s.anthropic.messages.create({
      model: "house-model",
      max_tokens: 2048,
      thinking,
      messages: [{ role: "user", content: "route" }],
    });
    const thought = answer.content.find((block) => block.type === "thinking");
    assertEquals(thought?.type === "thinking" && thought.thinking, "Considering: route");

    const stream = s.anthropic.messages.stream({
      model: "house-model",
      max_tokens: 2048,
      thinking,
      messages: [{ role: "user", content: "routed stream" }],
    });
    let streamed = "";
    for await (const event of stream) {
      if (event.type === "content_block_delta" && event.delta.type === "thinking_delta") {
        streamed += event.delta.thinking;
      }
    }
    assertEquals(streamed, "Considering: routed stream");
    const text = (await stream.finalMessage()).content.find((block) => block.type === "text");
    assertEquals(text?.type === "text" && text.text, "Echo: routed stream");

    const chat = await s.openai.chat.completions.create({
      model: "house-model",
      stream: true,
      messages: [{ role: "user", content: "passed through" }],
    });
    let content = "";
    for await (const chunk of chat) content += chunk.choices[0]?.delta?.content ?? "";
    assertEquals(content, "Echo: passed through");
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);

/** The houses docs/providers.md says need nothing changed, read from its presets table. */
async function plainHouses(): Promise<string[]> {
  const doc = await Deno.readTextFile(new URL("../../docs/providers.md", import.meta.url));
  return doc.split("\n")
    .filter((line) => /^\| [A-Za-z]+ +\| `https?:/.test(line))
    .map((line) => line.split("|").map((cell) => cell.trim()))
    .filter((cells) => cells[3].startsWith("nothing the gateway needs to change"))
    .map((cells) => cells[1]);
}

Deno.test(
  "presets that need nothing changed (Groq, xAI, Together): an openai channel as the preset says serves chat stream and not with the openai SDK, the ledger summing",
  serverTest,
  async () => {
    const houses = await plainHouses();
    assertEquals(houses, ["Groq", "xAI", "Together"], "the presets table's plain houses");
    await using s = await setup({ keys: ["sk-house"] });
    for (const house of houses) {
      const model = `house-${house.toLowerCase()}`;
      await s.gw.putModel(model, { kind: "text", price: TEST_TEXT_PRICE });
      await s.gw.addChannel({
        name: house,
        base_url: s.upstream.baseUrl,
        keys: ["sk-house"],
        models: [model],
        model_map: { [model]: `${house.toLowerCase()}-model` },
      });
      const chat = await s.openai.chat.completions.create({
        model,
        messages: [{ role: "user", content: house }],
      });
      assertEquals(chat.choices[0].message.content, `Echo: ${house}`);
      const stream = await s.openai.chat.completions.create({
        model,
        messages: [{ role: "user", content: house }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      let usage = false;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? "";
        usage ||= chunk.usage != null;
      }
      assertEquals([text, usage], [`Echo: ${house}`, true]);
    }
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);
