/** The `openai` channel type: an OpenAI-compatible chat-completions upstream. Pure functions. */

import type { Channel } from "../channel_schema.ts";
import { isRetryableStatus, UpstreamAttemptError } from "../upstream.ts";

/** The URL and headers of a chat-completions call on `channel`. */
export function buildOpenAIChatRequest(channel: Channel, upstreamKey: string, body: string) {
  return {
    url: `${channel.base_url}/chat/completions`,
    init: {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "authorization": `Bearer ${upstreamKey}`,
      },
      body,
    } satisfies RequestInit,
  };
}

/** Reads an OpenAI-style error answer into an attempt error; never echoes upstream secrets. */
export async function readOpenAIError(response: Response): Promise<UpstreamAttemptError> {
  const text = await response.text().catch(() => "");
  let message = `HTTP ${response.status}`;
  let code: string | undefined;
  try {
    const parsed = JSON.parse(text);
    const error = parsed?.error ?? parsed;
    if (typeof error?.message === "string") message = `HTTP ${response.status}: ${error.message}`;
    if (typeof error?.code === "string") code = error.code;
  } catch {
    // a non-JSON error body: keep the status only
  }
  const retryable = isRetryableStatus(response.status);
  if (response.status === 401 || response.status === 403) {
    message = `HTTP ${response.status}: the channel's upstream credential was refused`;
  }
  return new UpstreamAttemptError(message, {
    retryable,
    status: response.status,
    upstreamCode: code,
    retryAfter: response.headers.get("retry-after") ?? undefined,
  });
}
