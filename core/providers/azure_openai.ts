/**
 * The `azure-openai` and `azure-openai-responses` channel types: Azure OpenAI, which speaks
 * OpenAI's wire format at other URLs with other auth. Each call is built by the OpenAI provider's
 * own builder (bodies unchanged, answers read by the same readers) and then moved to Azure's URL
 * and signed Azure's way (azure_openai_auth.ts). `base_url` is the resource's endpoint
 * (`https://{resource}.openai.azure.com`); the model map names deployments.
 *
 * URL shapes (`url_shape`):
 * - `deployment`: `{base_url}/openai/deployments/{deployment}/chat/completions?api-version=…`
 *   (also `/embeddings`, `/images/generations`, `/images/edits`, `/audio/transcriptions`,
 *   `/audio/translations`, `/audio/speech`); responses are
 *   `{base_url}/openai/responses?api-version=…` with the deployment as `model`;
 * - `v1`: `{base_url}/openai/v1/chat/completions` (and the rest), the deployment as `model`,
 *   `?api-version=` only when the channel's is `preview` or `latest` (a dated one is left off).
 */

import type { ChannelInput } from "../channels/channel_schema.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { azureAuth } from "./azure_openai_auth.ts";
import { buildOpenAITranscriptionRequest } from "./openai_audio.ts";
import { openAIChatProvider } from "./openai_chat.ts";
import { openAIEmbeddingProvider } from "./openai_embeddings.ts";
import { OPENAI_ERRORS } from "./openai_errors.ts";
import { openAIImagesProvider } from "./openai_images.ts";
import { openAIResponsesProvider } from "./openai_responses.ts";
import { buildOpenAISpeechRequest, openAISpeech } from "./openai_speech.ts";
import type { Provider, UpstreamTarget } from "./provider.ts";

/** The api-version values the v1 shape takes. */
const V1_VERSIONS = new Set(["preview", "latest"]);

/** The Azure URL of an OpenAI path (`/chat/completions`, `/responses`…) for `target`. */
export function azureOpenAIUrl({ channel, model }: UpstreamTarget, openAIPath: string): string {
  const version = channel.api_version;
  if ((channel.url_shape ?? "deployment") === "v1") {
    // v1 refuses dated versions; `preview` and `latest` opt in to preview features.
    const query = version && V1_VERSIONS.has(version) ? `?api-version=${version}` : "";
    return `${channel.base_url}/openai/v1${openAIPath}${query}`;
  }
  const query = `?api-version=${encodeURIComponent(version ?? "")}`;
  if (openAIPath === "/responses") return `${channel.base_url}/openai/responses${query}`;
  return `${channel.base_url}/openai/deployments/${encodeURIComponent(model)}${openAIPath}${query}`;
}

/**
 * `request`, built by an OpenAI builder for `target` (its URL `{base_url}{path}`), moved to
 * Azure's URL for that path and signed for Azure in place of the bearer key.
 */
export async function onAzure(
  target: UpstreamTarget,
  request: UpstreamRequest,
): Promise<UpstreamRequest> {
  const path = request.url.slice(target.channel.base_url.length);
  const { authorization: _key, ...headers } = request.init.headers as Record<string, string>;
  const auth = await azureAuth(target.channel, target.apiKey);
  return {
    url: azureOpenAIUrl(target, path),
    init: { ...request.init, headers: { ...headers, ...auth.headers } },
    // A fetched token Azure refuses is dropped: the next attempt fetches a fresh one.
    ...(auth.forget && { onRefused: auth.forget }),
  };
}

/** Why an Azure channel's settings cannot work, named by the field to change; or undefined. */
export function azureChannelProblem(
  channel: Omit<ChannelInput, "keys">,
): { param: string; message: string } | undefined {
  if ((channel.url_shape ?? "deployment") === "deployment" && !channel.api_version) {
    return {
      param: "api_version",
      message: `An ${channel.type} channel of url_shape 'deployment' needs an api_version (such ` +
        `as '2024-10-21'): Azure refuses a deployment call without one. Or use url_shape 'v1'`,
    };
  }
  if (channel.azure_auth === "entra") {
    const missing = (["entra_tenant_id", "entra_client_id"] as const).find((name) =>
      !channel[name]
    );
    if (missing) {
      return {
        param: missing,
        message: `An ${channel.type} channel with azure_auth 'entra' needs entra_tenant_id and ` +
          `entra_client_id; its keys are that app's client secrets`,
      };
    }
  }
  return undefined;
}

/** The fields only Azure channels take. */
export const AZURE_FIELDS = [
  "url_shape",
  "api_version",
  "azure_auth",
  "entra_tenant_id",
  "entra_client_id",
  "entra_authority",
] as const;

const common = {
  baseUrlExample: "https://my-resource.openai.azure.com",
  // The gateway adds everything from /openai on.
  appendedPaths: /\/openai(\/.*)?$/,
  errors: OPENAI_ERRORS,
  settings: AZURE_FIELDS,
  channelProblem: azureChannelProblem,
};

/**
 * Chat completions, embeddings, images and audio (transcriptions, translations, speech) on Azure
 * OpenAI deployments. Azure has no moderations endpoint (its content filters run on every call).
 */
export const azureOpenAIProvider: Provider = {
  ...common,
  kinds: ["text", "embedding", "image", "audio"],
  transcription: {
    request: (target, job) => onAzure(target, buildOpenAITranscriptionRequest(target, job)),
  },
  speech: {
    ...openAISpeech,
    request: (target, job) => onAzure(target, buildOpenAISpeechRequest(target, job)),
  },
  text: {
    format: "openai-chat",
    request: async (target, input) =>
      onAzure(target, await openAIChatProvider.text!.request(target, input)),
  },
  embedding: {
    ...openAIEmbeddingProvider,
    requests: async (target, input) =>
      await Promise.all(
        (await openAIEmbeddingProvider.requests(target, input)).map(async (request) => ({
          ...await onAzure(target, request),
          inputs: request.inputs,
        })),
      ),
  },
  image: {
    ...openAIImagesProvider.image!,
    requests: async (target, job) =>
      await Promise.all(
        (await openAIImagesProvider.image!.requests(target, job)).map((request) =>
          onAzure(target, request)
        ),
      ),
  },
};

/** The responses API on Azure OpenAI. */
export const azureOpenAIResponsesProvider: Provider = {
  ...common,
  kinds: ["text"],
  text: {
    format: "openai-responses",
    request: async (target, input) =>
      onAzure(target, await openAIResponsesProvider.text!.request(target, input)),
  },
};
