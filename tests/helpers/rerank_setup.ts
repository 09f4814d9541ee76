/**
 * A gateway whose rerank models are served by simulated rerank upstreams, and whose moderation
 * model is served by a simulated OpenAI moderations upstream on an `openai` channel.
 */

import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "./gateway.ts";
import {
  type RerankUpstream,
  type RerankUpstreamOptions,
  startRerankUpstream,
} from "../upstream/rerank.ts";
import {
  type ModerationFault,
  type ModerationUpstream,
  startModerationUpstream,
} from "../upstream/openai_moderations.ts";

/** Billed per search unit (a query with up to 100 documents). */
export const RERANK_SEARCH_MODEL = "rerank-search";
export const RERANK_SEARCH_PRICE = { per_search: 2_000 };
/** Billed per million tokens of the upstream's usage. */
export const RERANK_TOKEN_MODEL = "rerank-tokens";
export const RERANK_TOKEN_PRICE = { input: 50_000 };
export const RERANK_UPSTREAM_MODEL = "rerank-sim";
export const MODERATION_MODEL = "omni-moderation-latest";

export interface RerankSetup extends AsyncDisposable {
  gw: TestGateway;
  upstream: RerankUpstream;
  moderation: ModerationUpstream;
  keyId: string;
  key: string;
  client: OpenAI;
  /** The rerank channel's id. */
  channelId: string;
  close(): Promise<void>;
}

export async function setupRerank(
  options: {
    balance?: number;
    upstream?: RerankUpstreamOptions;
    rerankPath?: "/v1/rerank" | "/v2/rerank";
    /** The moderation model's price; null: the built-in catalog entry as it is. */
    moderationPrice?: { per_request: number } | null;
    moderationFaults?: ModerationFault[];
    key?: Record<string, unknown>;
  } = {},
): Promise<RerankSetup> {
  const upstream = startRerankUpstream(options.upstream);
  const moderation = startModerationUpstream({ faults: options.moderationFaults });
  const gw = await startTestGateway();
  await gw.putModel(RERANK_SEARCH_MODEL, { kind: "rerank", price: RERANK_SEARCH_PRICE });
  await gw.putModel(RERANK_TOKEN_MODEL, { kind: "rerank", price: RERANK_TOKEN_PRICE });
  if (options.moderationPrice !== null) {
    await gw.putModel(MODERATION_MODEL, {
      kind: "moderation",
      price: options.moderationPrice ?? { per_request: 0 },
    });
  }
  const channel = await gw.addChannel({
    name: "rerank",
    type: "rerank",
    base_url: upstream.baseUrl,
    ...(options.rerankPath ? { rerank_path: options.rerankPath } : {}),
    models: [RERANK_SEARCH_MODEL, RERANK_TOKEN_MODEL],
    model_map: {
      [RERANK_SEARCH_MODEL]: RERANK_UPSTREAM_MODEL,
      [RERANK_TOKEN_MODEL]: RERANK_UPSTREAM_MODEL,
    },
  });
  await gw.addChannel({
    name: "moderation",
    type: "openai",
    base_url: moderation.baseUrl,
    models: [MODERATION_MODEL],
  });
  const { id, key } = await gw.createKey({
    balance: options.balance ?? 10_000_000,
    ...options.key,
  });
  const close = async () => {
    await gw.close();
    await upstream.close();
    await moderation.close();
  };
  return {
    gw,
    upstream,
    moderation,
    keyId: id,
    key,
    channelId: channel.id,
    client: new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The request's record once its receipt is written. */
// deno-lint-ignore no-explicit-any
export async function settledRecord(gw: TestGateway, requestId: string): Promise<any> {
  for (let i = 0; i < 400; i++) {
    await gw.settle();
    const { status, body } = await gw.admin("GET", `/admin/requests/${requestId}`);
    if (status === 200 && body.receipt) return body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`request ${requestId} has no receipt`);
}
