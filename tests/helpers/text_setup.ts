/**
 * One gateway with a text model on each text channel type, each served by its simulated
 * upstream: `m-openai` (chat completions), `m-responses`, `m-anthropic`, `m-gemini`. The matrix
 * tests drive every inbound interface against each of them.
 */

import OpenAI from "openai";
import OpenAI7 from "openai7";
import { startTestGateway, TEST_TEXT_PRICE, type TestGateway } from "./gateway.ts";
import { type SimulatedUpstream, startOpenAIChatUpstream } from "../upstream/openai_chat.ts";
import {
  type ResponsesUpstream,
  startOpenAIResponsesUpstream,
} from "../upstream/openai_responses.ts";
import { type AnthropicUpstream, startAnthropicUpstream } from "../upstream/anthropic.ts";
import { type GeminiUpstream, startGeminiUpstream } from "../upstream/gemini.ts";

export type TextChannelType = "openai" | "openai-responses" | "anthropic" | "gemini";

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

export interface TextSetup extends AsyncDisposable {
  gw: TestGateway;
  chat: SimulatedUpstream;
  responses: ResponsesUpstream;
  anthropic: AnthropicUpstream;
  gemini: GeminiUpstream;
  keyId: string;
  key: string;
  /** The last request body each upstream received. */
  lastBody(type: TextChannelType): Record<string, unknown>;
  /** Requests each upstream received. */
  count(type: TextChannelType): number;
  /** Shuts everything down; `await using` does the same. */
  close(): Promise<void>;
}

export async function setupText(options: { balance?: number } = {}): Promise<TextSetup> {
  const chat = startOpenAIChatUpstream({ cachedTokens: CACHED_TOKENS });
  const responses = startOpenAIResponsesUpstream({ cachedTokens: CACHED_TOKENS });
  const anthropic = startAnthropicUpstream({ cachedTokens: CACHED_TOKENS });
  const gemini = startGeminiUpstream({ cachedTokens: CACHED_TOKENS });
  const gw = await startTestGateway();
  const channels: Array<[TextChannelType, string, string]> = [
    ["openai", chat.baseUrl, "sk-upstream-test"],
    ["openai-responses", responses.baseUrl, "sk-upstream-test"],
    ["anthropic", anthropic.baseUrl, "sk-ant-upstream-test"],
    ["gemini", gemini.baseUrl, "gemini-upstream-test"],
  ];
  for (const [type, baseUrl, key] of channels) {
    const model = MODEL_OF[type];
    await gw.putModel(model, { kind: "text", price: TEST_TEXT_PRICE, max_output_tokens: 2048 });
    await gw.addChannel({
      name: type,
      type,
      base_url: baseUrl,
      keys: [key],
      models: [model],
      model_map: { [model]: `${model}-upstream` },
    });
  }
  const { id, key } = await gw.createKey({ balance: options.balance ?? 100_000_000 });
  const bodies = {
    openai: () => chat.requests,
    "openai-responses": () => responses.requests,
    anthropic: () => anthropic.requests,
    gemini: () => gemini.requests,
  };
  const close = async () => {
    await gw.close();
    await Promise.all([chat.close(), responses.close(), anthropic.close(), gemini.close()]);
  };
  return {
    gw,
    chat,
    responses,
    anthropic,
    gemini,
    keyId: id,
    key,
    lastBody: (type) => bodies[type]().at(-1)!.body as Record<string, unknown>,
    count: (type) => bodies[type]().length,
    close,
    [Symbol.asyncDispose]: close,
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
