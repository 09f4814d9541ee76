/** The `anthropic` channel type: an upstream of Anthropic's messages API. */

import type { Channel } from "../channels/channel_schema.ts";
import type { ErrorDialect } from "../upstream/error_reader.ts";
import { filterAnthropicBetas } from "./anthropic_betas.ts";
import type { ClientHints } from "./client_hints.ts";
import { isTokenCount, type Provider, type TokenCount, type UpstreamTarget } from "./provider.ts";
import { readLenient, readLenientJson } from "../util/lenient_schema.ts";
import { anthropicErrorSchema, anthropicTokenCountSchema } from "./anthropic_schemas.ts";
import { anthropicModelList } from "./model_list.ts";

/** The `anthropic-version` sent when neither the client nor the channel names one. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** `{type:"error", error:{type, message}}`; 529 overloaded is a passing fault like 503. */
export const ANTHROPIC_ERRORS: ErrorDialect = {
  read(body) {
    const { error } = readLenient(anthropicErrorSchema, body);
    return { message: error?.message, code: error?.type };
  },
  normalStatus: (status) => status === 529 ? 503 : status,
};

function headers(
  { apiKey, channel }: UpstreamTarget,
  { accept, hints }: { accept: string; hints: ClientHints },
): Record<string, string> {
  const sent: Record<string, string> = {
    "content-type": "application/json",
    accept,
    "x-api-key": apiKey,
    "anthropic-version": hints.anthropicVersion ?? channel.anthropic_version ?? ANTHROPIC_VERSION,
  };
  const { kept } = filterAnthropicBetas(hints.anthropicBetas, channel.anthropic_betas);
  if (kept.length) sent["anthropic-beta"] = kept.join(",");
  return sent;
}

/** `path` on the channel, with the client's `?beta=` kept (the SDK's beta methods send it). */
function urlOf(channel: Channel, path: string, hints: ClientHints): string {
  const query = hints.betaQuery === undefined
    ? ""
    : `?${new URLSearchParams({ beta: hints.betaQuery })}`;
  return `${channel.base_url}${path}${query}`;
}

/** Fields of a messages request that count_tokens refuses ("Extra inputs are not permitted"). */
const NOT_COUNTED = [
  "max_tokens",
  "stream",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "metadata",
  "service_tier",
];

/** A count_tokens body of a messages request. */
export function anthropicCountTokensBody(
  request: Record<string, unknown>,
  model: string,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...request, model };
  for (const field of NOT_COUNTED) delete body[field];
  return body;
}

/** The count in a count_tokens answer (`{input_tokens}`). */
export function readAnthropicTokenCount(text: string): TokenCount | undefined {
  const counted = readLenientJson(anthropicTokenCountSchema, text).input_tokens;
  return isTokenCount(counted) ? { input: counted } : undefined;
}

export const anthropicProvider: Provider = {
  kinds: ["text"],
  baseUrlExample: "https://api.anthropic.com",
  appendedPaths: /\/v1(\/messages)?$/,
  errors: ANTHROPIC_ERRORS,
  modelList: anthropicModelList(ANTHROPIC_VERSION),
  text: {
    format: "anthropic",
    request: (target, { stream, body, hints }) =>
      Promise.resolve({
        url: urlOf(target.channel, "/v1/messages", hints),
        init: {
          method: "POST",
          headers: headers(target, {
            accept: stream ? "text/event-stream" : "application/json",
            hints,
          }),
          body,
        },
      }),
    countTokens: {
      request: (target, { request, hints }) =>
        Promise.resolve({
          url: urlOf(target.channel, "/v1/messages/count_tokens", hints),
          init: {
            method: "POST",
            headers: headers(target, { accept: "application/json", hints }),
            body: JSON.stringify(anthropicCountTokensBody(request, target.model)),
          },
        }),
      read: readAnthropicTokenCount,
    },
    removedHints: (channel, hints) =>
      filterAnthropicBetas(hints.anthropicBetas, channel.anthropic_betas).removed
        .map((beta) => `anthropic-beta=${beta}`),
  },
};
