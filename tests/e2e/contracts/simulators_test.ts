/**
 * The simulated upstreams (tests/upstream/) answer as the vendors define: every answer, stream
 * event and error of each simulator, called directly, validates against the vendor's definitions
 * (tests/fixtures/contracts/). A simulator that drifts from its vendor would make every test
 * through it prove less, so this runs with no known gaps.
 */

import { assertEquals } from "../../helpers/assert.ts";
import { Contracts } from "../../helpers/contracts.ts";
import { postJson, serverTest } from "../../helpers/gateway.ts";
import { INBOUND } from "../../helpers/text_inbound.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";
import { startOpenAIResponsesUpstream } from "../../upstream/openai_responses.ts";
import { startAnthropicUpstream } from "../../upstream/anthropic.ts";
import { startGeminiUpstream } from "../../upstream/gemini.ts";
import { startOpenAIImagesUpstream } from "../../upstream/openai_images.ts";
import { ANSWER_KINDS, ASK, type Interface, WITH_IMAGE } from "./text_requests.ts";
import { checkAnswer, checkError } from "./wire_checks.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const contracts = new Contracts();

/** Each text simulator as the interface it speaks, with a key it accepts. */
function startTextSimulators() {
  const stack = new AsyncDisposableStack();
  const chat = stack.use(startOpenAIChatUpstream({ cachedTokens: 6 }));
  const responses = stack.use(startOpenAIResponsesUpstream({ cachedTokens: 6 }));
  const anthropic = stack.use(startAnthropicUpstream({ cachedTokens: 6, cacheWriteTokens: 4 }));
  const gemini = stack.use(startGeminiUpstream({ cachedTokens: 6 }));
  const simulators: Record<Interface, { url: string; key: string; faults: Json[] }> = {
    chat: { url: chat.baseUrl, key: "sk-upstream-test", faults: chat.faults },
    responses: { url: responses.baseUrl, key: "sk-upstream-test", faults: responses.faults },
    messages: { url: anthropic.baseUrl, key: "sk-ant-upstream-test", faults: anthropic.faults },
    "generate-content": {
      url: gemini.baseUrl,
      key: "gemini-upstream-test",
      faults: gemini.faults,
    },
  };
  return { simulators, stack };
}

function send(
  simulator: { url: string; key: string },
  iface: Interface,
  stream: boolean,
  extra: Json,
  key = simulator.key,
) {
  const spec = INBOUND[iface];
  const model = "sim-model";
  return postJson(
    { url: new URL(simulator.url).origin },
    spec.path(model, stream),
    null,
    { ...spec.body(model, stream), ...extra },
    spec.headers(key),
  );
}

const INTERFACES = ["chat", "responses", "messages", "generate-content"] as const;
/** Each simulator's fault for an in-stream error (the chat simulator counts in chunks). */
const IN_STREAM_ERROR: Record<Interface, Json> = {
  chat: { kind: "in_stream_error", afterChunks: 2 },
  responses: { kind: "in_stream_error", afterFrames: 3 },
  messages: { kind: "in_stream_error", afterFrames: 3 },
  "generate-content": { kind: "in_stream_error", afterFrames: 1 },
};

Deno.test("contracts: the text simulators' answers and stream events", serverTest, async () => {
  const { simulators, stack } = startTextSimulators();
  await using _ = stack;
  for (const iface of INTERFACES) {
    for (const kind of ANSWER_KINDS) {
      for (const stream of [false, true]) {
        const label = `${iface} simulator, ${kind}, ${stream ? "streamed" : "whole"}`;
        const usage = iface === "chat" && stream ? { stream_options: { include_usage: true } } : {};
        const extra = { ...ASK[iface][kind], ...usage };
        const response = await send(simulators[iface], iface, stream, extra);
        await checkAnswer(contracts, iface, response, stream, label);
      }
    }
    const label = `${iface} simulator, an image`;
    await checkAnswer(
      contracts,
      iface,
      await send(simulators[iface], iface, false, WITH_IMAGE[iface]),
      false,
      label,
    );
  }
});

Deno.test("contracts: the text simulators' errors, whole and in stream", serverTest, async () => {
  const { simulators, stack } = startTextSimulators();
  await using _ = stack;
  for (const iface of INTERFACES) {
    const simulator = simulators[iface];
    const statuses = iface === "messages"
      ? [400, 429, 500, 529]
      : iface === "generate-content"
      ? [400, 429, 500, 503]
      : [400, 429, 500];
    for (const status of statuses) {
      simulator.faults.push({ kind: "status", status });
      await checkError(
        contracts,
        iface,
        await send(simulator, iface, false, {}),
        `${iface} simulator, ${status}`,
      );
    }
    await checkError(
      contracts,
      iface,
      await send(simulator, iface, false, {}, "wrong-key"),
      `${iface} simulator, a wrong key`,
    );
    simulator.faults.push(IN_STREAM_ERROR[iface]);
    const events = await checkAnswer(
      contracts,
      iface,
      await send(simulator, iface, true, {}),
      true,
      `${iface} simulator, in-stream error`,
    );
    assertEquals(
      events.some((event) => event?.type === "error" || event?.error !== undefined),
      true,
      `${iface} simulator: the stream carried its error`,
    );
  }
});

Deno.test("contracts: the Anthropic simulator's token count", serverTest, async () => {
  await using anthropic = startAnthropicUpstream();
  const response = await postJson(
    { url: anthropic.baseUrl },
    "/v1/messages/count_tokens",
    null,
    { model: "sim-model", messages: [{ role: "user", content: "hi" }] },
    INBOUND.messages.headers("sk-ant-upstream-test"),
  );
  assertEquals(response.status, 200);
  contracts.assert("anthropic", "MessageTokensCount", await response.json(), "count_tokens");
});

Deno.test("contracts: the image simulators' answers and errors", serverTest, async () => {
  for (const answer of ["b64_json", "url"] as const) {
    await using images = startOpenAIImagesUpstream({ answer });
    const generate = () =>
      postJson(
        { url: new URL(images.baseUrl).origin },
        "/v1/images/generations",
        "sk-upstream-test",
        {
          model: "gpt-image-1",
          prompt: "a red square",
        },
      );
    const response = await generate();
    assertEquals(response.status, 200, answer);
    contracts.assert("openai", "ImagesResponse", await response.json(), `images, ${answer}`);
    images.faults.push({ kind: "status", status: 500 });
    await checkError(contracts, "images", await generate(), "images simulator, 500");
  }

  await using gemini = startGeminiUpstream();
  for (const stream of [false, true]) {
    const response = await send(
      { url: gemini.baseUrl, key: "gemini-upstream-test" },
      "generate-content",
      stream,
      { generationConfig: { responseModalities: ["TEXT", "IMAGE"] } },
    );
    await checkAnswer(contracts, "generate-content", response, stream, `gemini image, ${stream}`);
  }
});
