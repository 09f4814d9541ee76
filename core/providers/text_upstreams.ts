/**
 * Where and how each text channel type is called: URL, auth headers, and how its error answers
 * read. Pure apart from reading an error body.
 */

import type { Channel } from "../channel_schema.ts";
import { isRetryableStatus, UpstreamAttemptError } from "../upstream.ts";
import { readOpenAIError } from "./openai_chat.ts";
import { readGeminiError } from "./gemini_images.ts";

/** The version the gateway speaks to messages upstreams. */
export const ANTHROPIC_VERSION = "2023-06-01";

export function textUpstreamRequest(
  channel: Channel,
  upstreamKey: string,
  upstreamModel: string,
  stream: boolean,
  body: string,
): { url: string; init: RequestInit } {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: stream ? "text/event-stream" : "application/json",
  };
  let url: string;
  switch (channel.type) {
    case "openai-responses":
      url = `${channel.base_url}/responses`;
      headers.authorization = `Bearer ${upstreamKey}`;
      break;
    case "anthropic":
      url = `${channel.base_url}/v1/messages`;
      headers["x-api-key"] = upstreamKey;
      headers["anthropic-version"] = ANTHROPIC_VERSION;
      break;
    case "gemini":
      url = `${channel.base_url}/v1beta/models/${encodeURIComponent(upstreamModel)}:${
        stream ? "streamGenerateContent?alt=sse" : "generateContent"
      }`;
      headers["x-goog-api-key"] = upstreamKey;
      break;
    default:
      url = `${channel.base_url}/chat/completions`;
      headers.authorization = `Bearer ${upstreamKey}`;
  }
  return { url, init: { method: "POST", headers, body } };
}

/** Reads a messages-API error answer (`{type:"error", error:{type, message}}`). */
export async function readAnthropicError(response: Response): Promise<UpstreamAttemptError> {
  const text = await response.text().catch(() => "");
  let message = `HTTP ${response.status}`;
  let code: string | undefined;
  try {
    const error = JSON.parse(text)?.error;
    if (typeof error?.message === "string") message = `HTTP ${response.status}: ${error.message}`;
    if (typeof error?.type === "string") code = error.type;
  } catch {
    // not JSON: keep the status only
  }
  if (response.status === 401 || response.status === 403) {
    message = `HTTP ${response.status}: the channel's upstream credential was refused`;
  }
  // 529 overloaded is Anthropic's own status: a passing fault like 503.
  return new UpstreamAttemptError(message, {
    retryable: isRetryableStatus(response.status),
    status: response.status === 529 ? 503 : response.status,
    upstreamCode: code,
    retryAfter: response.headers.get("retry-after") ?? undefined,
  });
}

export function readTextUpstreamError(channel: Channel, response: Response) {
  switch (channel.type) {
    case "anthropic":
      return readAnthropicError(response);
    case "gemini":
      return readGeminiError(response);
    default:
      return readOpenAIError(response);
  }
}
