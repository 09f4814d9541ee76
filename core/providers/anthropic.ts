/** The `anthropic` channel type: an upstream of Anthropic's messages API. */

import type { ErrorDialect } from "../upstream/error_reader.ts";
import type { Provider, UpstreamTarget } from "./provider.ts";

/** The version the gateway speaks to messages upstreams. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** `{type:"error", error:{type, message}}`; 529 overloaded is a passing fault like 503. */
export const ANTHROPIC_ERRORS: ErrorDialect = {
  read: (body) => ({ message: body?.error?.message, code: body?.error?.type }),
  normalStatus: (status) => status === 529 ? 503 : status,
};

function headers({ apiKey }: UpstreamTarget, accept: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept,
    "x-api-key": apiKey,
    "anthropic-version": ANTHROPIC_VERSION,
  };
}

export const anthropicProvider: Provider = {
  kinds: ["text"],
  baseUrlExample: "https://api.anthropic.com",
  appendedPaths: /\/v1(\/messages)?$/,
  errors: ANTHROPIC_ERRORS,
  text: {
    format: "anthropic",
    request: (target, { stream, body }) => ({
      url: `${target.channel.base_url}/v1/messages`,
      init: {
        method: "POST",
        headers: headers(target, stream ? "text/event-stream" : "application/json"),
        body,
      },
    }),
    countTokens: (target, body) => ({
      url: `${target.channel.base_url}/v1/messages/count_tokens`,
      init: { method: "POST", headers: headers(target, "application/json"), body },
    }),
  },
};
