/**
 * A test gateway with embedding models on simulated upstreams, and a funded key:
 * - `e-openai` on an `openai` channel (text-embedding-3-small, takes `dimensions`);
 * - `e-ada` on an `openai` channel (text-embedding-ada-002, refuses `dimensions`);
 * - `e-gemini` on a `gemini` channel (gemini-embedding-001).
 * Every model costs EMBEDDING_PRICE. `walletMatchesReceipts` checks the key's wallet against
 * the receipts of its requests.
 */

import { startTestGateway, type TestGateway } from "./gateway.ts";
import {
  type OpenAIEmbeddingsUpstream,
  startOpenAIEmbeddingsUpstream,
} from "../upstream/openai_embeddings.ts";
import {
  type GeminiEmbeddingsUpstream,
  startGeminiEmbeddingsUpstream,
} from "../upstream/gemini_embeddings.ts";
export { walletMatchesReceipts } from "./wallet_receipts.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** 3 units per input token. */
export const EMBEDDING_PRICE = { input: 3_000_000 };

export interface EmbeddingSetup extends AsyncDisposable {
  gw: TestGateway;
  keyId: string;
  key: string;
  /** The key's balance at the start. */
  startBalance: number;
  openai: OpenAIEmbeddingsUpstream;
  gemini: GeminiEmbeddingsUpstream;
  close(): Promise<void>;
}

export async function setupEmbeddings(
  options: { balance?: number; key?: Record<string, unknown> } = {},
): Promise<EmbeddingSetup> {
  await using stack = new AsyncDisposableStack();
  const openai = stack.use(startOpenAIEmbeddingsUpstream());
  const gemini = stack.use(startGeminiEmbeddingsUpstream());
  const gw = stack.use(await startTestGateway());
  const models: Array<[string, "openai" | "gemini", string, string]> = [
    ["e-openai", "openai", openai.baseUrl, "text-embedding-3-small"],
    ["e-ada", "openai", openai.baseUrl, "text-embedding-ada-002"],
    ["e-gemini", "gemini", gemini.baseUrl, "gemini-embedding-001"],
  ];
  for (const [model, type, baseUrl, upstreamModel] of models) {
    await gw.putModel(model, { kind: "embedding", price: EMBEDDING_PRICE });
    await gw.addChannel({
      name: model,
      type,
      base_url: baseUrl,
      keys: [type === "openai" ? "sk-upstream-test" : "gemini-upstream-key"],
      models: [model],
      model_map: { [model]: upstreamModel },
    });
  }
  const startBalance = options.balance ?? 10_000_000;
  const { id, key } = await gw.createKey({ balance: startBalance, ...options.key });
  const owned = stack.move();
  const close = () => owned.disposeAsync();
  return {
    gw,
    keyId: id,
    key,
    startBalance,
    openai,
    gemini,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The request's record once its receipt is written. */
export async function recordOf(gw: TestGateway, requestId: string): Promise<Json> {
  for (let i = 0; i < 200; i++) {
    await gw.settle();
    const { status, body } = await gw.admin("GET", `/admin/requests/${requestId}`);
    if (status === 200 && body.receipt) return body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`request ${requestId} has no receipt`);
}
