/** A gateway whose speech model is served by the simulated OpenAI speech upstream. */

import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "./gateway.ts";
import {
  type OpenAISpeechUpstream,
  type OpenAISpeechUpstreamOptions,
  startOpenAISpeechUpstream,
} from "../upstream/openai_speech.ts";

export const SPEECH_MODEL = "tts-test";
/** The classic model: takes no `instructions`. */
export const CLASSIC_SPEECH_MODEL = "tts-classic";
/** Units per input character in these tests (OpenAI's tts-1 is 15). */
export const SPEECH_PRICE = { per_character: 15 };

export interface SpeechSetup extends AsyncDisposable {
  gw: TestGateway;
  upstream: OpenAISpeechUpstream;
  channelId: string;
  keyId: string;
  key: string;
  client: OpenAI;
  close(): Promise<void>;
}

export async function setupSpeech(
  options: {
    balance?: number;
    upstream?: OpenAISpeechUpstreamOptions;
    key?: Record<string, unknown>;
    env?: Record<string, string>;
  } = {},
): Promise<SpeechSetup> {
  const upstream = startOpenAISpeechUpstream(options.upstream);
  const gw = await startTestGateway(options.env);
  await gw.putModel(SPEECH_MODEL, { kind: "audio", price: SPEECH_PRICE });
  await gw.putModel(CLASSIC_SPEECH_MODEL, { kind: "audio", price: SPEECH_PRICE });
  const { id: channelId } = await gw.addChannel({
    name: "speech",
    type: "openai",
    base_url: upstream.baseUrl,
    keys: ["sk-upstream-test"],
    models: [SPEECH_MODEL, CLASSIC_SPEECH_MODEL],
    model_map: { [SPEECH_MODEL]: "gpt-4o-mini-tts", [CLASSIC_SPEECH_MODEL]: "tts-1" },
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
    channelId,
    keyId: id,
    key,
    client: new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }),
    close,
    [Symbol.asyncDispose]: close,
  };
}
