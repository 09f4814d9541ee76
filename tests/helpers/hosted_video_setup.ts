/**
 * A gateway whose video model is served by a simulated `openai-video` (Sora) or `veo` upstream:
 * upstreams whose finished video needs the channel's key, so the gateway hosts it.
 */

import { startTestGateway, type TestGateway } from "./gateway.ts";
import { FAST_VIDEO_ENV, PER_SECOND, videoClient } from "./video_setup.ts";
import { type OpenAIVideoUpstream, startOpenAIVideoUpstream } from "../upstream/openai_video.ts";
import { startVeoUpstream, type VeoUpstream } from "../upstream/veo.ts";

export const OPENING = 100_000_000;

export interface HostedVideoSetup extends AsyncDisposable, ReturnType<typeof videoClient> {
  gw: TestGateway;
  keyId: string;
  key: string;
}

async function withGateway(
  channel: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<Omit<HostedVideoSetup, typeof Symbol.asyncDispose>> {
  const gw = await startTestGateway({ ...FAST_VIDEO_ENV, ...env });
  await gw.putModel("vid-hosted", { kind: "video", price: { per_second: PER_SECOND } });
  await gw.addChannel({ name: "hosted", models: ["vid-hosted"], ...channel });
  const { id, key } = await gw.createKey({ balance: OPENING });
  return { gw, keyId: id, key, ...videoClient(gw.url, key) };
}

export async function setupSora(
  options: {
    upstream?: Parameters<typeof startOpenAIVideoUpstream>[0];
    env?: Record<string, string>;
  } = {},
): Promise<HostedVideoSetup & { sora: OpenAIVideoUpstream }> {
  const sora = startOpenAIVideoUpstream(options.upstream);
  const setup = await withGateway({
    type: "openai-video",
    base_url: sora.baseUrl,
    keys: ["sora-upstream-test"],
    model_map: { "vid-hosted": "sora-2" },
  }, options.env);
  const close = async () => {
    await setup.gw.close();
    await sora.close();
  };
  return { ...setup, sora, [Symbol.asyncDispose]: close };
}

export async function setupVeo(
  options: { upstream?: Parameters<typeof startVeoUpstream>[0]; env?: Record<string, string> } = {},
): Promise<HostedVideoSetup & { veo: VeoUpstream }> {
  const veo = startVeoUpstream(options.upstream);
  const setup = await withGateway({
    type: "veo",
    base_url: veo.baseUrl,
    keys: ["veo-upstream-test"],
    model_map: { "vid-hosted": "veo-3.0-generate-001" },
  }, options.env);
  const close = async () => {
    await setup.gw.close();
    await veo.close();
  };
  return { ...setup, veo, [Symbol.asyncDispose]: close };
}

/** The key's ledger moves other than credits. */
export async function moves(s: HostedVideoSetup): Promise<Array<[string, number]>> {
  return (await s.gw.ledger(s.keyId)).filter((entry) => entry.type !== "credit")
    .map((entry) => [entry.type, entry.amount]);
}

/** The bytes at a hosted result URL, fetched as a client would (no key needed). */
export async function hostedBytes(url: string): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The request's record once its task ended (`GET /admin/requests/{id}`). */
// deno-lint-ignore no-explicit-any
export async function requestRecord(gw: TestGateway, requestId: string): Promise<any> {
  for (let i = 0; i < 400; i++) {
    await gw.settle();
    const { status, body } = await gw.admin("GET", `/admin/requests/${requestId}`);
    if (status === 200 && !body.task_pending) return body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`request ${requestId} was not completed`);
}
