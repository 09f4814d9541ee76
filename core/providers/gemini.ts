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
import type { Provider, UpstreamTarget } from "./provider.ts";

/**
 * `{error:{code, message, status}}`. Google answers a bad API key with 400 INVALID_ARGUMENT:
 * that is the channel's credential, not the client's request.
 */
export const GEMINI_ERRORS: ErrorDialect = {
  read: (body) => ({
    message: body?.error?.message,
    code: typeof body?.error?.status === "string" ? body.error.status.toLowerCase() : undefined,
  }),
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

export const geminiProvider: Provider = {
  kinds: ["text", "image"],
  baseUrlExample: "https://generativelanguage.googleapis.com",
  appendedPaths: /\/(v1|v1beta|v1alpha)(\/models.*)?$/,
  errors: GEMINI_ERRORS,
  text: { format: "gemini", request: geminiRequest },
  image: {
    // Gemini draws one image per call: n calls, each keeping what came back.
    requests(target, job) {
      const body = JSON.stringify(geminiImageBody(job));
      return Array.from({ length: job.n }, () => geminiRequest(target, { stream: false, body }));
    },
    readImages: readGeminiImageAnswer,
    ignoredFields: geminiIgnoredImageFields,
    generateContent: (target, body) =>
      geminiRequest(target, { stream: false, body: JSON.stringify(body) }),
  },
};
