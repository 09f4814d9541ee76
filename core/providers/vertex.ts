/**
 * The `vertex` channel type: Google Cloud's Vertex AI, for Gemini models (Google's
 * generate-content wire format, as the `gemini` type speaks it) and Claude models (Anthropic's
 * messages format through `rawPredict`). A call goes to
 * `{base}/v1/projects/{project}/locations/{location}/publishers/{google|anthropic}/models/{m}:…`
 * with a bearer token fetched for the channel's service account key (vertex_auth.ts).
 *
 * Which publisher a model goes to: the channel's `vertex_publisher` when set, else by the
 * model's upstream name: `claude-*` is Anthropic's, any other Google's.
 *
 * Embeddings: Google's text embedding models through `:predict` (vertex_embeddings.ts).
 *
 * Images: Gemini image models through `:generateContent` (the `gemini` type's image body and
 * reader), Imagen models (`imagen-*`) through `:predict` (vertex_images.ts).
 *
 * Token counts: a Gemini model's `:countTokens` (Vertex's CountTokensRequest: `contents`,
 * `systemInstruction`, `tools`, `generationConfig` at the top level, not the Gemini API's
 * `generateContentRequest`; answered `{totalTokens, totalBillableCharacters,
 * promptTokensDetails}`); Claude's `publishers/anthropic/models/count-tokens:rawPredict`, an
 * Anthropic count_tokens body naming its model, with Vertex's `anthropic_version`.
 */

import type { Channel } from "../channels/channel_schema.ts";
import type { TextFormat } from "../formats/neutral.ts";
import type { ErrorDialect } from "../upstream/error_reader.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { readLenient } from "../util/lenient_schema.ts";
import { filterAnthropicBetas } from "./anthropic_betas.ts";
import { anthropicErrorSchema } from "./anthropic_schemas.ts";
import type { ClientHints } from "./client_hints.ts";
import { geminiErrorAnswerSchema } from "./gemini_schemas.ts";
import type {
  EmbeddingProvider,
  ImageProvider,
  Provider,
  TokenCount,
  UpstreamTarget,
} from "./provider.ts";
import { geminiIgnoredImageFields, geminiImageBody } from "./gemini_images.ts";
import { imagenBodies, imagenRefusal, isImagenModel, readVertexImages } from "./vertex_images.ts";
import { anthropicCountTokensBody, readAnthropicTokenCount } from "./anthropic.ts";
import { readGeminiTokenCount } from "./gemini.ts";
import { serviceAccountProblem, vertexAccessToken } from "./vertex_auth.ts";
import { VERTEX_BASE_URL, vertexOrigin } from "./vertex_endpoint.ts";
import {
  readVertexEmbeddings,
  vertexEmbedCalls,
  vertexEmbedIgnoredFields,
} from "./vertex_embeddings.ts";
import { VERTEX_MODEL_LIST } from "./vertex_model_list.ts";

/** The `anthropic_version` a Claude body on Vertex AI carries (in the body, not a header). */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

/**
 * Google's envelope (`{error:{code, message, status}}`) for what Vertex AI itself refuses
 * (tokens, projects, Gemini requests), Anthropic's (`{type:"error", error:{type, message}}`) for
 * what Claude refuses through rawPredict; 529 overloaded is a passing fault like 503.
 */
export const VERTEX_ERRORS: ErrorDialect = {
  read(body) {
    const google = readLenient(geminiErrorAnswerSchema, body).error;
    const anthropic = readLenient(anthropicErrorSchema, body).error;
    return {
      message: google?.message ?? anthropic?.message,
      code: google?.status?.toLowerCase() ?? anthropic?.type,
    };
  },
  normalStatus: (status) => status === 529 ? 503 : status,
};

/** The format a model of `channel` is spoken in: by its publisher. */
export function vertexFormat(channel: Channel, upstreamModel: string): TextFormat {
  const publisher = channel.vertex_publisher ??
    (/^claude-/i.test(upstreamModel) ? "anthropic" : "google");
  return publisher === "anthropic" ? "anthropic" : "gemini";
}

/** A model's method URL (model ids such as `claude-sonnet-4-5@20250929` keep their `@`). */
export function vertexUrl(
  channel: Channel,
  input: { publisher: "google" | "anthropic"; model: string; method: string },
): string {
  const model = encodeURIComponent(input.model).replaceAll("%40", "@");
  return `${vertexOrigin(channel)}/v1/projects/${channel.project}/locations/` +
    `${channel.location ?? "global"}/publishers/${input.publisher}/models/${model}:${input.method}`;
}

/** An authorized POST of `body`; a 401 answer drops the token from the cache. */
async function authorizedPost(
  { apiKey }: UpstreamTarget,
  input: { url: string; body: string; stream: boolean; headers?: Record<string, string> },
): Promise<UpstreamRequest> {
  const { token, forget } = await vertexAccessToken(apiKey);
  return {
    url: input.url,
    init: {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: input.stream ? "text/event-stream" : "application/json",
        ...input.headers,
      },
      body: input.body,
    },
    onRefused: forget,
  };
}

/** A messages body as rawPredict takes it: no `model`, and Vertex's `anthropic_version`. */
export function vertexAnthropicBody(body: string): string {
  const { model: _model, anthropic_version: _version, ...rest } = JSON.parse(body);
  return JSON.stringify({ anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest });
}

/** The fields of a GenerateContentRequest that Vertex AI's CountTokensRequest has. */
const VERTEX_COUNTED_FIELDS = ["contents", "systemInstruction", "tools", "generationConfig"];

/** The `:countTokens` body of a Gemini model's GenerateContentRequest (other fields refused). */
export function vertexGeminiCountBody(request: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    VERTEX_COUNTED_FIELDS.filter((field) => request[field] !== undefined)
      .map((field) => [field, request[field]]),
  );
}

/** The `count-tokens:rawPredict` body of a messages request to Claude model `model`. */
export function vertexClaudeCountBody(
  request: Record<string, unknown>,
  model: string,
): Record<string, unknown> {
  const { anthropic_version: _version, ...body } = anthropicCountTokensBody(request, model);
  return { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...body };
}

/** Either answer: Google's CountTokensResponse, or Anthropic's `{input_tokens}`. */
export function readVertexTokenCount(text: string): TokenCount | undefined {
  return readGeminiTokenCount(text) ?? readAnthropicTokenCount(text);
}

function betaHeaders(channel: Channel, hints: ClientHints): Record<string, string> {
  const { kept } = filterAnthropicBetas(hints.anthropicBetas, channel.anthropic_betas);
  return kept.length ? { "anthropic-beta": kept.join(",") } : {};
}

/** Embeddings: Google's text embedding models through `:predict` (vertex_embeddings.ts). */
const vertexEmbeddingProvider: EmbeddingProvider = {
  takesTokens: false,
  requests: (target, { job }) =>
    Promise.all(
      vertexEmbedCalls(target.model, job).map(async ({ inputs, body }) => ({
        ...await authorizedPost(target, {
          url: vertexUrl(target.channel, {
            publisher: "google",
            model: target.model,
            method: "predict",
          }),
          body: JSON.stringify(body),
          stream: false,
        }),
        inputs,
      })),
    ),
  read: (answer, expected) => readVertexEmbeddings(new TextDecoder().decode(answer), expected),
  ignoredFields: vertexEmbedIgnoredFields,
};

/** A Google model's `:generateContent` (or other method) call of `body`. */
function googlePost(target: UpstreamTarget, method: string, body: unknown) {
  return authorizedPost(target, {
    url: vertexUrl(target.channel, { publisher: "google", model: target.model, method }),
    body: JSON.stringify(body),
    stream: false,
  });
}

/**
 * Images: a Gemini image model draws one image a `:generateContent` call (the `gemini` type's
 * body and reader); an Imagen model up to 4 a `:predict` call (vertex_images.ts).
 */
const vertexImageProvider: ImageProvider = {
  requests(target, job) {
    if (isImagenModel(target.model)) {
      return Promise.all(
        imagenBodies(target.model, job).map((body) => googlePost(target, "predict", body)),
      );
    }
    const body = geminiImageBody(job);
    return Promise.all(
      Array.from({ length: job.n }, () => googlePost(target, "generateContent", body)),
    );
  },
  readImages: readVertexImages,
  // Imagen refuses edits (refusal), so the mask of one never reaches it.
  ignoredFields: geminiIgnoredImageFields,
  generateContent: (target, body) => googlePost(target, "generateContent", body),
  passesThrough: (model) => !isImagenModel(model),
  refusal: (model, job) => isImagenModel(model) ? imagenRefusal(model, job) : undefined,
};

export const vertexProvider: Provider = {
  kinds: ["text", "image", "embedding"],
  baseUrlExample: VERTEX_BASE_URL,
  appendedPaths: /\/(v1|v1beta1)(\/projects.*)?$/,
  errors: VERTEX_ERRORS,
  modelList: VERTEX_MODEL_LIST,
  fields: [
    {
      name: "project",
      label: "Project",
      hint: "the Google Cloud project id",
      placeholder: "my-project-123",
      required: true,
    },
    {
      name: "location",
      label: "Location",
      hint: "a region such as us-central1, or global",
      placeholder: "us-central1",
      required: true,
    },
    {
      name: "vertex_publisher",
      label: "Publisher",
      hint: "who makes every model of the channel",
      options: [["", "by model name (claude-* Anthropic)"], ["google", "Google"], [
        "anthropic",
        "Anthropic",
      ]],
      required: false,
    },
  ],
  keyForm: {
    hint: "a service account's JSON key file, whole; sealed when saved and never shown again",
    problem: serviceAccountProblem,
  },
  text: {
    format: "gemini",
    formatFor: vertexFormat,
    request(target, { stream, body, hints }) {
      if (vertexFormat(target.channel, target.model) === "anthropic") {
        return authorizedPost(target, {
          url: vertexUrl(target.channel, {
            publisher: "anthropic",
            model: target.model,
            method: stream ? "streamRawPredict" : "rawPredict",
          }),
          body: vertexAnthropicBody(body),
          stream,
          headers: betaHeaders(target.channel, hints),
        });
      }
      return authorizedPost(target, {
        url: vertexUrl(target.channel, {
          publisher: "google",
          model: target.model,
          method: stream ? "streamGenerateContent?alt=sse" : "generateContent",
        }),
        body,
        stream,
      });
    },
    countTokens: {
      request(target, { request, hints }) {
        if (vertexFormat(target.channel, target.model) === "anthropic") {
          return authorizedPost(target, {
            url: vertexUrl(target.channel, {
              publisher: "anthropic",
              model: "count-tokens",
              method: "rawPredict",
            }),
            body: JSON.stringify(vertexClaudeCountBody(request, target.model)),
            stream: false,
            headers: betaHeaders(target.channel, hints),
          });
        }
        return authorizedPost(target, {
          url: vertexUrl(target.channel, {
            publisher: "google",
            model: target.model,
            method: "countTokens",
          }),
          body: JSON.stringify(vertexGeminiCountBody(request)),
          stream: false,
        });
      },
      read: readVertexTokenCount,
    },
    removedHints: (channel, hints) =>
      filterAnthropicBetas(hints.anthropicBetas, channel.anthropic_betas).removed
        .map((beta) => `anthropic-beta=${beta}`),
  },
  image: vertexImageProvider,
  embedding: vertexEmbeddingProvider,
};
