/**
 * A test gateway with text models served by simulated upstreams, and a funded key.
 *
 * - `setupChat()`: one model, `MODEL`, on one `openai` channel whose simulator's behaviour the
 *   test chooses (faults, delays, usage); an openai SDK client; 10.00 on the key.
 * - `setupText()`: a model on each text channel type, each served by its simulated upstream:
 *   `m-openai` (chat completions), `m-responses`, `m-anthropic`, `m-gemini`; 100.00 on the key.
 *   The matrix tests drive every inbound interface against each of them.
 *
 * Both are `AsyncDisposable`: `await using s = await setupChat();`.
 */

import OpenAI from "openai";
import OpenAI7 from "openai7";
import { startTestGateway, TEST_TEXT_PRICE, type TestGateway } from "./gateway.ts";
import {
  type SimulatedUpstream,
  type SimulatedUpstreamOptions,
  startOpenAIChatUpstream,
} from "../upstream/openai_chat.ts";
import {
  type ResponsesUpstream,
  startOpenAIResponsesUpstream,
} from "../upstream/openai_responses.ts";
import { type AnthropicUpstream, startAnthropicUpstream } from "../upstream/anthropic.ts";
import { type GeminiUpstream, startGeminiUpstream } from "../upstream/gemini.ts";

export type TextChannelType = "openai" | "openai-responses" | "anthropic" | "gemini";

/** What every text setup has: the gateway and a funded key on it. */
export interface TextGatewaySetup extends AsyncDisposable {
  gw: TestGateway;
  keyId: string;
  key: string;
  /** Shuts the gateway and the simulators down; `await using` does the same. */
  close(): Promise<void>;
}

interface TextChannel {
  type: TextChannelType;
  name: string;
  baseUrl: string;
  key: string;
  model: string;
  upstreamModel: string;
}

/**
 * Starts a gateway owned by `stack` with one text model at TEST_TEXT_PRICE per channel, and a key
 * funded with `balance`.
 */
async function startTextGateway(
  stack: AsyncDisposableStack,
  channels: TextChannel[],
  options: {
    balance: number;
    key?: Record<string, unknown>;
    model?: Record<string, unknown>;
    env?: Record<string, string>;
    /** Fields added to every channel (e.g. `breaker`). */
    channel?: Record<string, unknown>;
  },
): Promise<{ gw: TestGateway; keyId: string; key: string }> {
  const gw = stack.use(await startTestGateway(options.env));
  for (const channel of channels) {
    await gw.putModel(channel.model, { kind: "text", price: TEST_TEXT_PRICE, ...options.model });
    await gw.addChannel({
      name: channel.name,
      type: channel.type,
      base_url: channel.baseUrl,
      keys: [channel.key],
      models: [channel.model],
      model_map: { [channel.model]: channel.upstreamModel },
      ...options.channel,
    });
  }
  const { id, key } = await gw.createKey({ balance: options.balance, ...options.key });
  return { gw, keyId: id, key };
}

/** Takes everything `stack` owns; closing disposes it, last started first. */
function closer(
  stack: AsyncDisposableStack,
): Pick<TextGatewaySetup, "close" | typeof Symbol.asyncDispose> {
  const owned = stack.move();
  const close = () => owned.disposeAsync();
  return { close, [Symbol.asyncDispose]: close };
}

// ---- setupChat: one model on one simulated chat completions upstream

/**
 * Channel fields for tests that fail one channel many times to read how each failure is mapped:
 * with its breaker on, the sixth failure would be a skip (503, or 429 once a retry-after was seen).
 */
export const BREAKER_OFF = { breaker: { enabled: false } };

/** The public model of `setupChat()`. */
export const MODEL = "gpt-test";
/** The name `setupChat()`'s channel maps `MODEL` to upstream. */
export const UPSTREAM_MODEL = "sim-model-v1";

export interface ChatSetup extends TextGatewaySetup {
  upstream: SimulatedUpstream;
  client: OpenAI;
}

/** Starts everything; `balance` funds the key (default 10,000,000 units = 10.00). */
export async function setupChat(
  options: {
    balance?: number;
    upstream?: SimulatedUpstreamOptions;
    key?: Record<string, unknown>;
  } = {},
): Promise<ChatSetup> {
  await using stack = new AsyncDisposableStack();
  const upstream = stack.use(startOpenAIChatUpstream(options.upstream));
  const { gw, keyId, key } = await startTextGateway(stack, [{
    type: "openai",
    name: "primary",
    baseUrl: upstream.baseUrl,
    key: "sk-upstream-test",
    model: MODEL,
    upstreamModel: UPSTREAM_MODEL,
  }], { balance: options.balance ?? 10_000_000, key: options.key });
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  return { gw, upstream, keyId, key, client, ...closer(stack) };
}

/** The cost at TEST_TEXT_PRICE of an upstream usage object. */
export function testCost(usage: {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
}): number {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return Math.ceil((usage.prompt_tokens - cached) * 1 + cached * 0.5 + usage.completion_tokens * 2);
}

// ---- setupText: a model on each text channel type

export const CHANNEL_TYPES: TextChannelType[] = [
  "openai",
  "openai-responses",
  "anthropic",
  "gemini",
];

/** The public model served by each channel type. */
export const MODEL_OF: Record<TextChannelType, string> = {
  openai: "m-openai",
  "openai-responses": "m-responses",
  anthropic: "m-anthropic",
  gemini: "m-gemini",
};

export const CACHED_TOKENS = 6;

export interface TextSetup extends TextGatewaySetup {
  chat: SimulatedUpstream;
  responses: ResponsesUpstream;
  anthropic: AnthropicUpstream;
  gemini: GeminiUpstream;
  /** The last request body each upstream received. */
  lastBody(type: TextChannelType): Record<string, unknown>;
  /** Requests each upstream received. */
  count(type: TextChannelType): number;
}

/** The upstream key of each channel `setupText()` makes. */
export const UPSTREAM_KEY_OF: Record<TextChannelType, string> = {
  openai: "sk-upstream-test",
  "openai-responses": "sk-upstream-test",
  anthropic: "sk-ant-upstream-test",
  gemini: "gemini-upstream-test",
};

/**
 * `cachedTokens` (default CACHED_TOKENS): what each simulator reports read from its cache;
 * `env`: the gateway's environment settings beside the test defaults.
 */
export async function setupText(
  options: {
    balance?: number;
    cachedTokens?: number;
    cacheWriteTokens?: number;
    env?: Record<string, string>;
    /** Fields added to every channel (e.g. `breaker: {enabled: false}` to fail one many times). */
    channel?: Record<string, unknown>;
  } = {},
): Promise<TextSetup> {
  await using stack = new AsyncDisposableStack();
  const cachedTokens = options.cachedTokens ?? CACHED_TOKENS;
  const chat = stack.use(startOpenAIChatUpstream({ cachedTokens }));
  const responses = stack.use(startOpenAIResponsesUpstream({ cachedTokens }));
  const anthropic = stack.use(
    startAnthropicUpstream({ cachedTokens, cacheWriteTokens: options.cacheWriteTokens }),
  );
  const gemini = stack.use(startGeminiUpstream({ cachedTokens }));
  const channels = ([
    ["openai", chat.baseUrl],
    ["openai-responses", responses.baseUrl],
    ["anthropic", anthropic.baseUrl],
    ["gemini", gemini.baseUrl],
  ] as const).map(([type, baseUrl]) => ({
    type,
    name: type,
    baseUrl,
    key: UPSTREAM_KEY_OF[type],
    model: MODEL_OF[type],
    upstreamModel: `${MODEL_OF[type]}-upstream`,
  }));
  const { gw, keyId, key } = await startTextGateway(stack, channels, {
    balance: options.balance ?? 100_000_000,
    model: { max_output_tokens: 2048 },
    env: options.env,
    channel: options.channel,
  });
  const bodies = {
    openai: () => chat.requests,
    "openai-responses": () => responses.requests,
    anthropic: () => anthropic.requests,
    gemini: () => gemini.requests,
  };
  return {
    gw,
    chat,
    responses,
    anthropic,
    gemini,
    keyId,
    key,
    lastBody: (type) => bodies[type]().at(-1)!.body as Record<string, unknown>,
    count: (type) => bodies[type]().length,
    ...closer(stack),
  };
}

export const WEATHER_SCHEMA = {
  type: "object" as const,
  properties: { city: { type: "string" }, unit: { type: "string" } },
  required: ["city"],
};

/** An 8x8 red PNG, base64. */
export const RED_PNG_B64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEklEQVR4nGP4z8CAFWEXHbQSACj/P8Fu7N9hAAAAAElFTkSuQmCC";

/** The openai SDK's 6.x and 7.x lines, pointed at the setup's gateway. */
export function openaiClients(s: TextSetup): OpenAI[] {
  const options = { apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 };
  return [new OpenAI(options), new OpenAI7(options) as unknown as OpenAI];
}
