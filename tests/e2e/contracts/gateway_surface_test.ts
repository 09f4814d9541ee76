/**
 * The rest of the gateway's client surface as the vendors define it: model lists and models in
 * each shape (OpenAI, Anthropic, Gemini), errors in each envelope (the gateway's own refusals,
 * upstream failures from every channel type, in-stream errors), and image answers.
 */

import { assertEquals } from "../../helpers/assert.ts";
import { Contracts } from "../../helpers/contracts.ts";
import { postJson, serverTest } from "../../helpers/gateway.ts";
import { IMAGE_MODEL, setupImages } from "../../helpers/image_setup.ts";
import { INBOUND } from "../../helpers/text_inbound.ts";
import {
  CHANNEL_TYPES,
  MODEL_OF,
  setupText,
  type TextChannelType,
  type TextSetup,
} from "../../helpers/text_setup.ts";
import { KNOWN_GAPS } from "./known_gaps.ts";
import { type Interface, INTERFACES } from "./text_requests.ts";
import { checkAnswer, checkError } from "./wire_checks.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const contracts = new Contracts(KNOWN_GAPS);

function get(s: TextSetup, path: string, headers: Record<string, string>) {
  return fetch(`${s.gw.url}${path}`, { headers });
}

async function json(response: Response, label: string): Promise<Json> {
  assertEquals(response.status, 200, label);
  return await response.json();
}

Deno.test("contracts: model lists and models in each shape", serverTest, async () => {
  await using s = await setupText();
  const model = MODEL_OF.anthropic;

  const openai = { authorization: `Bearer ${s.key}` };
  const list = await json(await get(s, "/v1/models", openai), "OpenAI list");
  contracts.assert("openai", "ListModelsResponse", list, "GET /v1/models");
  contracts.assert(
    "openai",
    "Model",
    await json(await get(s, `/v1/models/${model}`, openai), "OpenAI model"),
    "GET /v1/models/{id}",
  );

  const anthropic = INBOUND.messages.headers(s.key);
  contracts.assert(
    "anthropic",
    "ModelListResponse",
    await json(await get(s, "/v1/models", anthropic), "Anthropic list"),
    "GET /v1/models (Anthropic)",
  );
  contracts.assert(
    "anthropic",
    "ModelInfo",
    await json(await get(s, `/v1/models/${model}`, anthropic), "Anthropic model"),
    "GET /v1/models/{id} (Anthropic)",
  );

  const google = INBOUND["generate-content"].headers(s.key);
  for (const path of ["/v1beta/models", "/v1/models"]) {
    contracts.assert(
      "gemini",
      "ListModelsResponse",
      await json(await get(s, path, google), `Gemini list ${path}`),
      `GET ${path} (Gemini)`,
    );
  }
  for (const path of [`/v1beta/models/${model}`, `/v1/models/${model}`]) {
    contracts.assert(
      "gemini",
      "Model",
      await json(await get(s, path, google), `Gemini model ${path}`),
      `GET ${path} (Gemini)`,
    );
  }

  await checkError(
    contracts,
    "models",
    await get(s, "/v1/models/no-such-model", openai),
    "GET /v1/models/{unknown}",
  );
  await checkError(
    contracts,
    "messages",
    await get(s, "/v1/models/no-such-model", anthropic),
    "GET /v1/models/{unknown} (Anthropic)",
  );
  await checkError(
    contracts,
    "generate-content",
    await get(s, "/v1beta/models/no-such-model", google),
    "GET /v1beta/models/{unknown}",
  );
});

/** A request to `iface` for `model`, with `headers` in place of the key's when given. */
function send(
  s: TextSetup,
  iface: Interface,
  model: string,
  options: { stream?: boolean; body?: Json; headers?: Record<string, string> } = {},
) {
  const spec = INBOUND[iface];
  const stream = options.stream ?? false;
  return postJson(
    s.gw,
    spec.path(model, stream),
    null,
    options.body ?? spec.body(model, stream),
    options.headers ?? spec.headers(s.key),
  );
}

Deno.test("contracts: the gateway's own refusals in each envelope", serverTest, async () => {
  await using s = await setupText({ balance: 1 });
  for (const iface of INTERFACES) {
    const model = MODEL_OF.openai;
    const wrongKey = INBOUND[iface].headers("sk-wrong");
    await checkError(
      contracts,
      iface,
      await send(s, iface, model, { headers: wrongKey }),
      `${iface}: a wrong key`,
    );
    for (const stream of [false, true]) {
      const unknown = await send(s, iface, "no-such-model", { stream });
      const label = `${iface}: an unknown model${stream ? ", streamed" : ""}`;
      const unknownStatus = unknown.status;
      await checkError(contracts, iface, unknown, label);
      contracts.expect(`unknown-model-404 ${iface}`, unknownStatus, 404, `${label}: not found`);
    }
    await checkError(
      contracts,
      iface,
      await send(s, iface, model, { body: "{" }),
      `${iface}: malformed JSON`,
    );
    await checkError(
      contracts,
      iface,
      await send(s, iface, model, { body: { model, messages: 7, contents: 7, input: 7 } }),
      `${iface}: a bad field`,
    );
    await checkError(
      contracts,
      iface,
      await send(s, iface, model, { body: `"${"x".repeat(32 * 1024 * 1024)}"` }),
      `${iface}: a body over the 32 MiB limit`,
    );
    await checkError(contracts, iface, await send(s, iface, model), `${iface}: no balance`);
  }
});

function pushFault(s: TextSetup, channel: TextChannelType, fault: Json, times = 1) {
  const faults = {
    openai: s.chat.faults,
    "openai-responses": s.responses.faults,
    anthropic: s.anthropic.faults,
    gemini: s.gemini.faults,
  }[channel];
  faults.length = 0;
  for (let i = 0; i < times; i++) faults.push(fault);
  return () => faults.length = 0;
}

/** Each channel's fault for an error event mid-stream (the chat simulator counts chunks). */
function inStreamError(channel: TextChannelType): Json {
  return channel === "openai"
    ? { kind: "in_stream_error", afterChunks: 2 }
    : { kind: "in_stream_error", afterFrames: channel === "gemini" ? 1 : 3 };
}

/** A connection dropped mid-stream (after the same frames as the error). */
function dropMidStream(channel: TextChannelType): Json {
  return { ...inStreamError(channel), kind: "die_mid_stream" };
}

/**
 * What an upstream failure is on /v1/messages, as Anthropic answers it (issue 30): the upstream's
 * 500 an api_error 500, its 429 a rate_limit_error 429, its 529 an overloaded_error 529.
 */
const ANTHROPIC_UPSTREAM: Record<number, [number, string]> = {
  429: [429, "rate_limit_error"],
  500: [500, "api_error"],
  529: [529, "overloaded_error"],
};

for (const iface of INTERFACES) {
  Deno.test(
    `contracts: upstream failures from every channel type in the ${iface} envelope`,
    serverTest,
    async () => {
      await using s = await setupText();
      for (const channel of CHANNEL_TYPES) {
        const model = MODEL_OF[channel];
        for (const status of [400, 429, 500, 503, 529]) {
          const clear = pushFault(s, channel, { kind: "status", status }, 5);
          const label = `${iface} ← ${channel} ${status}`;
          const response = await send(s, iface, model);
          const answered = response.status;
          const body = await checkError(contracts, iface, response, label);
          if (iface === "messages" && ANTHROPIC_UPSTREAM[status]) {
            contracts.expect(
              `anthropic-upstream-status ${status}`,
              [answered, body.error.type],
              ANTHROPIC_UPSTREAM[status],
              label,
            );
          }
          clear();
        }
        for (const fault of [inStreamError(channel), dropMidStream(channel)]) {
          pushFault(s, channel, fault);
          const events = await checkAnswer(
            contracts,
            iface,
            await send(s, iface, model, { stream: true }),
            true,
            `${iface} ← ${channel}, ${fault.kind}`,
          );
          assertEquals(
            events.some((event) => event?.type === "error" || event?.error !== undefined),
            true,
            `${iface} ← ${channel} (${fault.kind}): the stream carried its error`,
          );
        }
      }
    },
  );
}

Deno.test("contracts: image answers and refusals", serverTest, async () => {
  for (const type of ["openai-images", "gemini"] as const) {
    await using s = await setupImages(type);
    for (const response_format of ["b64_json", "url"]) {
      const response = await postJson(s.gw, "/v1/images/generations", s.key, {
        model: IMAGE_MODEL,
        prompt: "a red square",
        response_format,
      });
      contracts.assert(
        "openai",
        "ImagesResponse",
        await json(response, `${type} ${response_format}`),
        `images ← ${type}, ${response_format}`,
      );
    }
    await checkError(
      contracts,
      "images",
      await postJson(s.gw, "/v1/images/generations", s.key, { model: IMAGE_MODEL, n: "x" }),
      `images ← ${type}: a bad request`,
    );
    for (const stream of [false, true]) {
      const response = await postJson(
        s.gw,
        INBOUND["generate-content"].path(IMAGE_MODEL, stream),
        null,
        {
          contents: [{ role: "user", parts: [{ text: "a red square" }] }],
          generationConfig: { responseModalities: ["TEXT", "IMAGE"] },
        },
        INBOUND["generate-content"].headers(s.key),
      );
      await checkAnswer(
        contracts,
        "generate-content",
        response,
        stream,
        `generateContent image ← ${type}, ${stream ? "streamed" : "whole"}`,
      );
    }
  }
});
