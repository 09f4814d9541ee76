/**
 * The provider table: one row per channel type. Everything that depends on a channel's type
 * reads it here, so adding a channel type is one provider file, one row, and its name in
 * `CHANNEL_TYPES`.
 */

import type { Channel, ChannelInput, ChannelType } from "../channels/channel_schema.ts";
import { pickUpstreamKeyIndex, upstreamModelName } from "../channels/routing.ts";
import type { AttemptTrace } from "../upstream/failover.ts";
import { anthropicProvider } from "./anthropic.ts";
import { azureOpenAIProvider, azureOpenAIResponsesProvider } from "./azure_openai.ts";
import { arkVideoProvider } from "./ark_video.ts";
import { bedrockProvider } from "./bedrock.ts";
import { gatewayVideoProvider } from "./gateway_video.ts";
import { geminiProvider } from "./gemini.ts";
import { openAIChatProvider } from "./openai_chat.ts";
import { openAIImagesProvider } from "./openai_images.ts";
import { openAIResponsesProvider } from "./openai_responses.ts";
import { rerankProvider } from "./rerank.ts";
import { openAIVideoProvider } from "./openai_video.ts";
import { veoVideoProvider } from "./veo_video.ts";
import { vertexProvider } from "./vertex.ts";
import type { TextFormat } from "../formats/neutral.ts";
import type { ChannelTypeField, ModelKind, Provider, UpstreamTarget } from "./provider.ts";

/** A channel's values of the fields only some types read. */
type TypeFieldValues = { [name in ChannelTypeField["name"]]?: string };

export const PROVIDERS: Record<ChannelType, Provider> = {
  "openai": openAIChatProvider,
  "openai-responses": openAIResponsesProvider,
  "anthropic": anthropicProvider,
  "gemini": geminiProvider,
  "openai-images": openAIImagesProvider,
  "ark-video": arkVideoProvider,
  "gateway-video": gatewayVideoProvider,
  "rerank": rerankProvider,
  "azure-openai": azureOpenAIProvider,
  "azure-openai-responses": azureOpenAIResponsesProvider,
  "openai-video": openAIVideoProvider,
  "veo": veoVideoProvider,
  "vertex": vertexProvider,
  "bedrock": bedrockProvider,
};

/** Each setting only some types read (a provider's `settings`), with those types. */
const TYPE_SETTINGS: Array<[string, ChannelType[]]> = [
  ...new Set(Object.values(PROVIDERS).flatMap((provider) => provider.settings ?? [])),
].map((name) => [
  name,
  (Object.keys(PROVIDERS) as ChannelType[]).filter((type) =>
    PROVIDERS[type].settings?.includes(name)
  ),
]);

/**
 * Where one call of `publicModel` on `channel` goes: a key picked, the model name mapped. The
 * key's fingerprint goes on `trace`, so the attempt's outcome is counted against that key.
 */
export function upstreamTarget(
  channel: Channel,
  publicModel: string,
  trace?: AttemptTrace,
): UpstreamTarget {
  const index = pickUpstreamKeyIndex(channel);
  if (trace) trace.keyFingerprint = channel.fingerprints?.get(channel.keys[index]);
  return {
    channel,
    apiKey: channel.keys[index],
    model: upstreamModelName(channel, publicModel),
  };
}

/** The provider of a channel. */
export function providerOf(channel: { type: ChannelType }): Provider {
  return PROVIDERS[channel.type];
}

/** The wire format a text channel speaks for `publicModel` (Vertex AI's and Bedrock's depend on the model). */
export function textFormatOf(channel: Channel, publicModel: string): TextFormat {
  const text = PROVIDERS[channel.type].text!;
  return text.formatFor?.(channel, upstreamModelName(channel, publicModel)) ?? text.format;
}

/** Whether a channel can serve models of `kind`. */
export function servesKind(channel: { type: ChannelType }, kind: ModelKind): boolean {
  return PROVIDERS[channel.type].kinds.includes(kind);
}

/** The rules the channel registry checks a channel against (given to it at wiring). */
export const CHANNEL_RULES = {
  /** Whether a channel of `type` can serve models of `kind`. */
  serves: (type: ChannelType, kind: ModelKind): boolean => PROVIDERS[type].kinds.includes(kind),
  /** The kind of model `create_models` makes for a channel of `type`. */
  modelKind: (type: ChannelType): ModelKind => PROVIDERS[type].kinds[0],
  /** Why `baseUrl` cannot be right for `type`, or undefined. */
  baseUrlProblem(type: ChannelType, baseUrl: string): string | undefined {
    const { appendedPaths, baseUrlExample } = PROVIDERS[type];
    const path = new URL(baseUrl).pathname.replace(/\/+$/, "");
    const appended = path.match(appendedPaths)?.[0];
    if (!appended) return undefined;
    return `A ${type} channel's base_url is what the provider's SDK takes, and the gateway adds ` +
      `the rest; '${baseUrl}' already ends with '${appended}'. Use the form '${baseUrlExample}'`;
  },
  /** Whether a channel of `type` may have no upstream key. */
  keyless: (type: ChannelType): boolean => PROVIDERS[type].keyless === true,
  /** Why a channel's settings cannot work with its type (a 400 naming `param`), or undefined. */
  channelProblem(
    channel: Omit<ChannelInput, "keys">,
  ): { param: string; message: string } | undefined {
    const own = PROVIDERS[channel.type].settings ?? [];
    const stray = TYPE_SETTINGS.find(([name]) =>
      (channel as Record<string, unknown>)[name] !== undefined && !own.includes(name)
    );
    if (stray) {
      const [name, types] = stray;
      return {
        param: name,
        message: `${name} is a setting of ${types.join(" and ")} channels; this channel is ` +
          channel.type,
      };
    }
    return PROVIDERS[channel.type].channelProblem?.(channel);
  },
  /** What is wrong with `key` as an upstream key of `channel`, or undefined. */
  keyProblem: (channel: Omit<ChannelInput, "keys">, key: string): string | undefined =>
    PROVIDERS[channel.type].keyProblem?.(channel, key) ??
      PROVIDERS[channel.type].keyForm?.problem(key),
  /** A field a `type` channel needs that `channel` lacks, or undefined. */
  missingField(type: ChannelType, channel: TypeFieldValues): string | undefined {
    return PROVIDERS[type].fields?.find((field) =>
      field.required && (channel[field.name] === undefined || channel[field.name] === "")
    )?.name;
  },
};

export type ChannelRules = typeof CHANNEL_RULES;
