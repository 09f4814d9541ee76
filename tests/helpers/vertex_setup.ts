/**
 * A test gateway with a `vertex` channel on the Vertex simulator (tests/upstream/vertex.ts):
 * `v-gemini` (gemini-2.5-flash, Google's) and `v-claude` (claude-sonnet-4-5@20250929,
 * Anthropic's by its name) at TEST_TEXT_PRICE, and a key funded with 100.00.
 * `walletMatchesReceipts` checks the key's wallet against its requests' receipts.
 */

import { startTestGateway, TEST_TEXT_PRICE, type TestGateway } from "./gateway.ts";
import { startVertexUpstream, type VertexUpstream } from "../upstream/vertex.ts";
export { walletMatchesReceipts } from "./wallet_receipts.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export const VERTEX_GEMINI = "v-gemini";
export const VERTEX_CLAUDE = "v-claude";
export const VERTEX_MODEL_MAP = {
  [VERTEX_GEMINI]: "gemini-2.5-flash",
  [VERTEX_CLAUDE]: "claude-sonnet-4-5@20250929",
};

export interface VertexSetup extends AsyncDisposable {
  gw: TestGateway;
  sim: VertexUpstream;
  channelId: string;
  keyId: string;
  key: string;
  startBalance: number;
  /** The fields of the setup's channel, for a test to add another like it. */
  channelFields(): Record<string, unknown>;
  close(): Promise<void>;
}

/**
 * `now`: the gateway's clock of breakers and automatic disabling; `cachedTokens`: what the
 * models report read from their cache; `claudeCountLocations`: where Claude's count is offered.
 */
export async function setupVertex(
  options: {
    channel?: Record<string, unknown>;
    now?: () => number;
    cachedTokens?: number;
    claudeCountLocations?: string[];
  } = {},
): Promise<VertexSetup> {
  await using stack = new AsyncDisposableStack();
  const sim = stack.use(
    await startVertexUpstream({
      cachedTokens: options.cachedTokens,
      claudeCountLocations: options.claudeCountLocations,
    }),
  );
  const gw = stack.use(await startTestGateway({}, { now: options.now }));
  for (const model of [VERTEX_GEMINI, VERTEX_CLAUDE]) {
    await gw.putModel(model, { kind: "text", price: TEST_TEXT_PRICE, max_output_tokens: 2048 });
  }
  const channelFields = () => ({
    name: "vertex",
    type: "vertex",
    base_url: sim.baseUrl,
    project: sim.project,
    location: sim.location,
    keys: [sim.account.json],
    models: [VERTEX_GEMINI, VERTEX_CLAUDE],
    model_map: VERTEX_MODEL_MAP,
  });
  const channel = await gw.addChannel({ ...channelFields(), ...options.channel });
  const startBalance = 100_000_000;
  const { id, key } = await gw.createKey({ balance: startBalance });
  const owned = stack.move();
  const close = () => owned.disposeAsync();
  return {
    gw,
    sim,
    channelId: channel.id,
    keyId: id,
    key,
    startBalance,
    channelFields,
    close,
    [Symbol.asyncDispose]: close,
  };
}
