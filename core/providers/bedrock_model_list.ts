/**
 * A `bedrock` channel's model list, read from Bedrock's control plane (not the runtime the calls
 * go to): `ListFoundationModels` (`GET /foundation-models`, one page, `{modelSummaries: [{modelId,
 * modelName, inferenceTypesSupported, outputModalities…}]}`), then the system-defined inference
 * profiles (`ListInferenceProfiles`, `GET /inference-profiles?type=SYSTEM_DEFINED`, paged by
 * `maxResults` and `nextToken`; `{inferenceProfileSummaries: [{inferenceProfileId,
 * inferenceProfileName, status}], nextToken}`): newer models (Claude 3.7 and later) are called on
 * demand only through a profile id such as `us.anthropic.claude-sonnet-4-…`.
 *
 * Kept: foundation models callable on demand (`ON_DEMAND` among `inferenceTypesSupported`; a
 * model callable only through a profile or provisioned throughput is left out, its profile listed
 * instead) that answer text (`TEXT` among `outputModalities`) or are text embedding models the
 * gateway calls (`EMBEDDING`, of a family bedrock_embeddings.ts knows: Titan Text, Cohere Embed)
 * or image models it calls (`IMAGE`, of a family bedrock_images.ts knows: Nova Canvas, Titan
 * Image Generator, Stable Diffusion 3.5 Large), and the `ACTIVE` profiles.
 * Signed as the channel's calls are (bedrock_auth.ts: SigV4 for service `bedrock` in the
 * channel's region, or the Bedrock API key).
 *
 * A page token is `profiles:{nextToken}`: the foundation models are the first page.
 */

import { z } from "zod";
import type { Channel } from "../channels/channel_schema.ts";
import { listOf, optional, optionalString, readLenientJson } from "../util/lenient_schema.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { bedrockAuthHeaders } from "./bedrock_auth.ts";
import { bedrockEmbedFamily } from "./bedrock_embeddings.ts";
import { bedrockImageFamily } from "./bedrock_images.ts";
import type { ModelList, ModelListPage } from "./model_list.ts";

/** The largest page of inference profiles asked for (the API's own limit). */
export const BEDROCK_PROFILES_PAGE_SIZE = 1000;
const PROFILES = "profiles:";

/** AWS's runtime host names: `bedrock-runtime[-fips].{region}.amazonaws.com[.cn]`. */
const RUNTIME_HOST = /^bedrock-runtime(-fips)?\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

/**
 * Where `channel`'s control-plane calls go: AWS's runtime host becomes its control-plane host
 * (`bedrock-runtime.us-east-1.amazonaws.com` → `bedrock.us-east-1.amazonaws.com`, fips too); any
 * other base URL (a proxy, a private endpoint, a simulator) is taken to serve both planes.
 */
export function bedrockControlUrl(channel: Pick<Channel, "base_url">): string {
  const url = new URL(channel.base_url);
  if (!RUNTIME_HOST.test(url.hostname)) return channel.base_url.replace(/\/+$/, "");
  url.hostname = url.hostname.replace(/^bedrock-runtime/, "bedrock");
  return url.href.replace(/\/+$/, "");
}

async function bedrockListRequest(
  { channel, apiKey }: { channel: Channel; apiKey: string },
  next?: string,
): Promise<UpstreamRequest> {
  const control = bedrockControlUrl(channel);
  const url = next?.startsWith(PROFILES)
    ? `${control}/inference-profiles?${new URLSearchParams({
      maxResults: String(BEDROCK_PROFILES_PAGE_SIZE),
      type: "SYSTEM_DEFINED",
      ...(next.length > PROFILES.length ? { nextToken: next.slice(PROFILES.length) } : {}),
    })}`
    : `${control}/foundation-models`;
  const headers = await bedrockAuthHeaders(channel, apiKey, {
    method: "GET",
    url,
    headers: { accept: "application/json" },
    body: "",
  });
  return { url, init: { method: "GET", headers } };
}

const foundationModelsSchema = z.looseObject({
  modelSummaries: listOf(z.looseObject({
    modelId: z.string().min(1),
    modelName: optionalString,
    inferenceTypesSupported: optional(z.array(z.string())),
    outputModalities: optional(z.array(z.string())),
  })),
});

const inferenceProfilesSchema = z.looseObject({
  inferenceProfileSummaries: listOf(z.looseObject({
    inferenceProfileId: z.string().min(1),
    inferenceProfileName: optionalString,
    status: optionalString,
  })),
  nextToken: optionalString,
});

/**
 * Whether the channel's calls serve what `model` outputs: text, a known embedding family or a
 * known image family.
 */
function servedOutput(model: { modelId: string; outputModalities?: string[] }): boolean {
  const outputs = model.outputModalities;
  if (outputs === undefined || outputs.includes("TEXT")) return true;
  if (outputs.includes("IMAGE") && bedrockImageFamily(model.modelId) !== undefined) return true;
  return outputs.includes("EMBEDDING") && bedrockEmbedFamily(model.modelId) !== undefined;
}

/** One page, asked with `next`: the foundation models (first) or a page of profiles. */
export function readBedrockModels(text: string, next?: string): ModelListPage {
  if (!next?.startsWith(PROFILES)) {
    const models = readLenientJson(foundationModelsSchema, text).modelSummaries
      .filter((model) =>
        servedOutput(model) && (model.inferenceTypesSupported?.includes("ON_DEMAND") ?? true)
      )
      .map((model) => ({ id: model.modelId, label: model.modelName }));
    return { models, next: PROFILES };
  }
  const answer = readLenientJson(inferenceProfilesSchema, text);
  return {
    models: answer.inferenceProfileSummaries
      .filter((profile) => (profile.status ?? "ACTIVE") === "ACTIVE")
      .map((profile) => ({ id: profile.inferenceProfileId, label: profile.inferenceProfileName })),
    next: answer.nextToken ? `${PROFILES}${answer.nextToken}` : undefined,
  };
}

export const BEDROCK_MODEL_LIST: ModelList = {
  request: bedrockListRequest,
  read: (text, asked) => readBedrockModels(text, asked?.next),
};
