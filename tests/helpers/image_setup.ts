/** A gateway whose image model is served by a simulated `openai-images` or `gemini` upstream. */

import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "./gateway.ts";
import {
  type OpenAIImagesUpstream,
  type OpenAIImagesUpstreamOptions,
  startOpenAIImagesUpstream,
} from "../upstream/openai_images.ts";
import {
  type GeminiUpstream,
  type GeminiUpstreamOptions,
  startGeminiUpstream,
} from "../upstream/gemini.ts";

export const IMAGE_MODEL = "gen-image-2";
/** Units per image in these tests; `1536x1024/high` costs more. */
export const IMAGE_PRICE = { per_image: 40_000, tiers: { "1536x1024/high": 90_000 } };
export const GEMINI_UPSTREAM_MODEL = "gemini-image-sim";
export const OPENAI_UPSTREAM_MODEL = "gpt-image-sim";

export type ImageChannelType = "openai-images" | "gemini";

export interface ImageSetup extends AsyncDisposable {
  gw: TestGateway;
  type: ImageChannelType;
  openai?: OpenAIImagesUpstream;
  gemini?: GeminiUpstream;
  keyId: string;
  key: string;
  client: OpenAI;
  /** Upstream requests recorded so far, whichever simulator serves. */
  upstreamRequests(): number;
  /** Shuts everything down; `await using` does the same. */
  close(): Promise<void>;
}

export async function setupImages(
  type: ImageChannelType,
  options: {
    balance?: number;
    openai?: OpenAIImagesUpstreamOptions;
    gemini?: GeminiUpstreamOptions;
    env?: Record<string, string>;
    key?: Record<string, unknown>;
  } = {},
): Promise<ImageSetup> {
  const openai = type === "openai-images" ? startOpenAIImagesUpstream(options.openai) : undefined;
  const gemini = type === "gemini" ? startGeminiUpstream(options.gemini) : undefined;
  const gw = await startTestGateway(options.env);
  await gw.putModel(IMAGE_MODEL, { kind: "image", price: IMAGE_PRICE });
  await gw.addChannel(
    type === "openai-images"
      ? {
        name: "images",
        type,
        base_url: openai!.baseUrl,
        models: [IMAGE_MODEL, "gen-image-2-4k"],
        model_map: { [IMAGE_MODEL]: OPENAI_UPSTREAM_MODEL },
      }
      : {
        name: "gemini-images",
        type,
        base_url: gemini!.baseUrl,
        keys: ["gemini-upstream-test"],
        models: [IMAGE_MODEL, "gen-image-2-4k"],
        model_map: { [IMAGE_MODEL]: GEMINI_UPSTREAM_MODEL },
      },
  );
  const { id, key } = await gw.createKey({
    balance: options.balance ?? 10_000_000,
    ...options.key,
  });
  const close = async () => {
    await gw.close();
    await openai?.close();
    await gemini?.close();
  };
  return {
    gw,
    type,
    openai,
    gemini,
    keyId: id,
    key,
    client: new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }),
    upstreamRequests: () => (openai?.requests.length ?? 0) + (gemini?.requests.length ?? 0),
    close,
    [Symbol.asyncDispose]: close,
  };
}
