/**
 * A gateway whose audio models are served by a simulated OpenAI Audio upstream on an `openai`
 * channel: `stt-second` (whisper-1 upstream, billed per second of input audio) and `stt-token`
 * (gpt-4o-transcribe upstream, billed per token of its usage).
 */

import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "./gateway.ts";
import { type OpenAIAudioUpstream, startOpenAIAudioUpstream } from "../upstream/openai_audio.ts";

export const SECOND_MODEL = "stt-second";
export const TOKEN_MODEL = "stt-token";
/** 6,000 units per second of input audio ($0.006 a minute is 100 units a second; a round test figure). */
export const SECOND_PRICE = { per_second: 6_000 };
/** Units per million input and output tokens. */
export const TOKEN_PRICE = { input: 2_500_000, output: 10_000_000 };

export interface AudioSetup extends AsyncDisposable {
  gw: TestGateway;
  upstream: OpenAIAudioUpstream;
  keyId: string;
  key: string;
  client: OpenAI;
  close(): Promise<void>;
}

export async function setupAudio(
  options: { balance?: number; key?: Record<string, unknown>; env?: Record<string, string> } = {},
): Promise<AudioSetup> {
  const upstream = startOpenAIAudioUpstream();
  const gw = await startTestGateway(options.env);
  await gw.putModel(SECOND_MODEL, { kind: "audio", price: SECOND_PRICE });
  await gw.putModel(TOKEN_MODEL, { kind: "audio", price: TOKEN_PRICE });
  await gw.addChannel({
    name: "openai-audio",
    type: "openai",
    base_url: upstream.baseUrl,
    models: [SECOND_MODEL, TOKEN_MODEL],
    model_map: { [SECOND_MODEL]: "whisper-1", [TOKEN_MODEL]: "gpt-4o-transcribe" },
  });
  const { id, key } = await gw.createKey({
    balance: options.balance ?? 10_000_000,
    ...options.key,
  });
  const close = async () => {
    await gw.close();
    await upstream.close();
  };
  return {
    gw,
    upstream,
    keyId: id,
    key,
    client: new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }),
    close,
    [Symbol.asyncDispose]: close,
  };
}
