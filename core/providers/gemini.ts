/**
 * The `gemini` channel type: Google's generate-content API, for text models and image models
 * (an image job becomes one `generateContent` call per image; see gemini_images.ts).
 */

import type { ErrorDialect } from "../upstream/error_reader.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import {
  geminiIgnoredImageFields,
  geminiImageBody,
  readGeminiImageAnswer,
} from "./gemini_images.ts";
import { isTokenCount, type Provider, type TokenCount, type UpstreamTarget } from "./provider.ts";
import { readLenient, readLenientJson } from "../util/lenient_schema.ts";
import { geminiEmbeddingProvider } from "./gemini_embeddings.ts";
import { geminiErrorAnswerSchema, geminiTokenCountSchema } from "./gemini_schemas.ts";
import { GEMINI_MODEL_LIST } from "./model_list.ts";

/**
 * `{error:{code, message, status}}`. Google answers a bad API key with 400 INVALID_ARGUMENT:
 * that is the channel's credential, not the client's request.
 */
export const GEMINI_ERRORS: ErrorDialect = {
  read(body) {
    const { error } = readLenient(geminiErrorAnswerSchema, body);
    return { message: error?.message, code: error?.status?.toLowerCase() };
  },
  refusesCredential: (_status, message) => /API key not valid/i.test(message),
};

/** A generateContent (or streaming, SSE-framed) call of `body` on `target`. */
export function geminiRequest(
  { channel, apiKey, model }: UpstreamTarget,
  input: { stream: boolean; body: string },
): UpstreamRequest {
  const method = input.stream ? "streamGenerateContent?alt=sse" : "generateContent";
  return {
    url: `${channel.base_url}/v1beta/models/${encodeURIComponent(model)}:${method}`,
    init: {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: input.stream ? "text/event-stream" : "application/json",
        "x-goog-api-key": apiKey,
      },
      body: input.body,
    },
  };
}

/**
 * A countTokens call of a GenerateContentRequest: sent whole as `generateContentRequest`, so
 * system instructions and tools count as they would in the call itself.
 */
export function geminiCountTokensRequest(
  { channel, apiKey, model }: UpstreamTarget,
  { request }: { request: Record<string, unknown> },
): UpstreamRequest {
  return {
    url: `${channel.base_url}/v1beta/models/${encodeURIComponent(model)}:countTokens`,
    init: {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "x-goog-api-key": apiKey,
      },
      body: JSON.stringify({ generateContentRequest: { ...request, model: `models/${model}` } }),
    },
  };
}

/** The figures of a CountTokensResponse. */
export function readGeminiTokenCount(text: string): TokenCount | undefined {
  const answer = readLenientJson(geminiTokenCountSchema, text);
  const total = answer.totalTokens;
  if (!isTokenCount(total)) return undefined;
  const cached = answer.cachedContentTokenCount;
  const details = answer.promptTokensDetails;
  return {
    input: total,
    ...(Number.isInteger(cached) ? { cached: cached as number } : {}),
    ...(details
      ? {
        byModality: details.map((entry) => ({
          modality: entry.modality,
          tokenCount: Number.isInteger(entry.tokenCount) ? entry.tokenCount as number : 0,
        })),
      }
      : {}),
  };
}

export const geminiProvider: Provider = {
  kinds: ["text", "image", "embedding"],
  baseUrlExample: "https://generativelanguage.googleapis.com",
  appendedPaths: /\/(v1|v1beta|v1alpha)(\/models.*)?$/,
  errors: GEMINI_ERRORS,
  modelList: GEMINI_MODEL_LIST,
  text: {
    format: "gemini",
    request: (target, input) => Promise.resolve(geminiRequest(target, input)),
    countTokens: {
      request: (target, input) => Promise.resolve(geminiCountTokensRequest(target, input)),
      read: readGeminiTokenCount,
    },
  },
  image: {
    // Gemini draws one image per call: n calls, each keeping what came back.
    requests(target, job) {
      const body = JSON.stringify(geminiImageBody(job));
      return Promise.resolve(
        Array.from({ length: job.n }, () => geminiRequest(target, { stream: false, body })),
      );
    },
    readImages: readGeminiImageAnswer,
    ignoredFields: geminiIgnoredImageFields,
    generateContent: (target, body) =>
      Promise.resolve(geminiRequest(target, { stream: false, body: JSON.stringify(body) })),
  },
  embedding: geminiEmbeddingProvider,
};
