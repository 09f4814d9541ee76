/** A gateway with one text model served by simulated OpenAI upstreams, and a funded key. */

import OpenAI from "openai";
import { startTestGateway, TEST_TEXT_PRICE, type TestGateway } from "./gateway.ts";
import {
  type SimulatedUpstream,
  type SimulatedUpstreamOptions,
  startOpenAIChatUpstream,
} from "../upstream/openai_chat.ts";

export const MODEL = "gpt-test";
export const UPSTREAM_MODEL = "sim-model-v1";

export interface ChatSetup extends AsyncDisposable {
  gw: TestGateway;
  upstream: SimulatedUpstream;
  keyId: string;
  key: string;
  client: OpenAI;
  /** Shuts everything down; `await using` does the same. */
  close(): Promise<void>;
}

/** Starts everything; `balance` funds the key (default 10,000,000 units = 10.00). */
export async function setupChat(
  options: {
    balance?: number;
    upstream?: SimulatedUpstreamOptions;
    key?: Record<string, unknown>;
  } = {},
): Promise<ChatSetup> {
  const upstream = startOpenAIChatUpstream(options.upstream);
  const gw = await startTestGateway();
  await gw.putModel(MODEL, { kind: "text", price: TEST_TEXT_PRICE });
  await gw.addChannel({
    name: "primary",
    base_url: upstream.baseUrl,
    models: [MODEL],
    model_map: { [MODEL]: UPSTREAM_MODEL },
  });
  const { id, key } = await gw.createKey({
    balance: options.balance ?? 10_000_000,
    ...options.key,
  });
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const close = async () => {
    await gw.close();
    await upstream.close();
  };
  return {
    gw,
    upstream,
    keyId: id,
    key,
    client,
    close,
    [Symbol.asyncDispose]: close,
  };
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
