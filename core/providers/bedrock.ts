/**
 * The `bedrock` channel type: models on Amazon Bedrock, through one of two APIs (`bedrock_api`;
 * unset: `invoke` for Anthropic models, `converse` for the others):
 *
 * - `invoke`: InvokeModel and InvokeModelWithResponseStream with native Anthropic bodies (the
 *   wire format is `anthropic`, so the Anthropic format's bodies and readers serve it):
 *   `POST {base_url}/model/{modelId}/invoke` and `/invoke-with-response-stream`; the body is a
 *   messages body without `model` and `stream`, with `anthropic_version: "bedrock-2023-05-31"`
 *   and the client's betas as `anthropic_beta`; each stream `chunk` event's `bytes` is one
 *   Anthropic stream event (JSON, base64);
 * - `converse`: Converse and ConverseStream (`/model/{modelId}/converse`, `/converse-stream`),
 *   the `bedrock-converse` format (core/formats/bedrock_converse/); each stream event is named
 *   by its `:event-type` and carries its JSON.
 *
 * Token counts: CountTokens, `POST {base_url}/model/{modelId}/count-tokens` with
 * `{"input": {"invokeModel": {"body": base64 of the InvokeModel body}}}` or
 * `{"input": {"converse": {messages, system, toolConfig, additionalModelRequestFields}}}` by the
 * channel's API, answered `{"inputTokens": N}`. Counting takes foundation models only, so an
 * inference profile (`us.anthropic.…`) is counted as the model it routes to.
 *
 * Both: the model id (`anthropic.claude-3-5-sonnet-20240620-v1:0`, an inference profile
 * `us.anthropic.…`, or an ARN) URL-encoded in the path; streams are AWS's binary event stream,
 * an exception frame the stream's error; signed with SigV4 for the channel's `region`, or a
 * Bedrock API key (bedrock_auth.ts).
 */

import type { Channel, ChannelInput } from "../channels/channel_schema.ts";
import type { TextFormat } from "../formats/neutral.ts";
import { isAnthropicModel } from "../formats/bedrock_converse/encode_request.ts";
import type { ErrorDialect } from "../upstream/error_reader.ts";
import { framedEvents, type UpstreamEvent } from "../upstream/upstream_events.ts";
import { type AwsEventMessage, AwsEventStreamFraming } from "../upstream/aws_event_stream.ts";
import { readLenient, readLenientJson } from "../util/lenient_schema.ts";
import { filterAnthropicBetas } from "./anthropic_betas.ts";
import { awsCredentialsOf, bedrockAuthHeaders } from "./bedrock_auth.ts";
import { BEDROCK_MODEL_LIST } from "./bedrock_model_list.ts";
import { bedrockCountingModel, bedrockModelPath } from "./bedrock_model_id.ts";
import { bedrockEmbeddingProvider } from "./bedrock_embeddings.ts";
import { bedrockImageProvider } from "./bedrock_images.ts";
import { awsErrorSchema, bedrockChunkSchema, bedrockTokenCountSchema } from "./bedrock_schemas.ts";
import type { ClientHints } from "./client_hints.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { isTokenCount, type Provider, type TokenCount, type UpstreamTarget } from "./provider.ts";

export { bedrockCountingModel, bedrockModelPath };

/** The `anthropic_version` Bedrock takes in an InvokeModel body. */
export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

/** The fields only Bedrock channels take. */
export const BEDROCK_FIELDS = ["region", "bedrock_auth", "bedrock_api"] as const;

/** The API a call of `upstreamModel` on `channel` goes to. */
export function bedrockApiOf(channel: Channel, upstreamModel: string): "invoke" | "converse" {
  return channel.bedrock_api ?? (isAnthropicModel(upstreamModel) ? "invoke" : "converse");
}

/** The wire format of `upstreamModel` on `channel`. */
export function bedrockFormatOf(channel: Channel, upstreamModel: string): TextFormat {
  return bedrockApiOf(channel, upstreamModel) === "invoke" ? "anthropic" : "bedrock-converse";
}

/** `{"message": …}` (some services write `Message`); the error's name is in `x-amzn-ErrorType`. */
export const AWS_ERRORS: ErrorDialect = {
  read(body) {
    const { message, Message } = readLenient(awsErrorSchema, body);
    return { message: message ?? Message };
  },
};

/**
 * A messages body (`model` and `stream` set by the gateway) as InvokeModel takes it: without
 * them, with Bedrock's `anthropic_version`, and the betas the channel lets through.
 */
export function bedrockInvokeBody(body: string, betas: string[]): string {
  const { model: _model, stream: _stream, ...rest } = JSON.parse(body) as Record<string, unknown>;
  const sent: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...rest };
  if (betas.length) sent.anthropic_beta = betas;
  return JSON.stringify(sent);
}

/** Bedrock's stream exceptions by the Anthropic error type that says the same. */
const ANTHROPIC_TYPE_OF_EXCEPTION: Record<string, string> = {
  throttlingException: "rate_limit_error",
  serviceUnavailableException: "overloaded_error",
  modelNotReadyException: "overloaded_error",
  modelTimeoutException: "timeout_error",
  validationException: "invalid_request_error",
  internalServerException: "api_error",
  modelStreamErrorException: "api_error",
};

/**
 * An exception frame's message (AWS's words) and its type, named as Anthropic names it (which
 * every client format's encoder knows); an exception Bedrock has not named is an `api_error`.
 */
function exceptionOf(message: AwsEventMessage, text: string): { type: string; message: string } {
  const name = message.headers[":exception-type"] ?? message.headers[":error-code"] ?? "";
  const type = ANTHROPIC_TYPE_OF_EXCEPTION[name] ?? "api_error";
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = {};
  }
  const { message: said, Message } = readLenient(awsErrorSchema, parsed);
  return { type, message: said ?? Message ?? message.headers[":error-message"] ?? (name || type) };
}

function isException(message: AwsEventMessage): boolean {
  const kind = message.headers[":message-type"];
  return kind === "exception" || kind === "error";
}

/**
 * One event-stream message of ConverseStream as an event of the `bedrock-converse` format:
 * the event's JSON, named by its `:event-type`; an exception frame as an `exception` event
 * `{type, message}`.
 */
export function converseEventOf(message: AwsEventMessage): UpstreamEvent | undefined {
  const text = new TextDecoder().decode(message.body);
  if (isException(message)) {
    return { event: "exception", data: JSON.stringify(exceptionOf(message, text)) };
  }
  const eventType = message.headers[":event-type"];
  return eventType ? { event: eventType, data: text } : undefined;
}

/**
 * One event-stream message of InvokeModelWithResponseStream as an Anthropic stream event: a
 * `chunk`'s decoded bytes (named by their `type`, as Anthropic's SSE names them), or for an
 * exception frame an Anthropic `error` event carrying AWS's exception name and message.
 */
export function anthropicEventOf(message: AwsEventMessage): UpstreamEvent | undefined {
  const text = new TextDecoder().decode(message.body);
  if (isException(message)) {
    return {
      event: "error",
      data: JSON.stringify({ type: "error", error: exceptionOf(message, text) }),
    };
  }
  if (message.headers[":event-type"] !== "chunk") return undefined;
  let bytes: string | undefined;
  try {
    bytes = readLenient(bedrockChunkSchema, JSON.parse(text)).bytes;
  } catch {
    return undefined;
  }
  if (bytes === undefined) return undefined;
  const data = new TextDecoder().decode(Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0)));
  let type: string | undefined;
  try {
    const event = JSON.parse(data);
    type = typeof event?.type === "string" ? event.type : undefined;
  } catch {
    // passed on as it came; the format's decoder skips what it cannot read
  }
  return type ? { event: type, data } : { data };
}

/**
 * The call that sends `body` (in the format of the channel's API for the model): InvokeModel
 * with the Anthropic body made Bedrock's, or Converse with the body as it is; signed.
 */
async function bedrockRequest(
  target: UpstreamTarget,
  { stream, body, hints }: { stream: boolean; body: string; hints: ClientHints },
): Promise<UpstreamRequest> {
  const { channel, apiKey, model } = target;
  const invoke = bedrockApiOf(channel, model) === "invoke";
  const action = invoke
    ? (stream ? "invoke-with-response-stream" : "invoke")
    : (stream ? "converse-stream" : "converse");
  const url = channel.base_url + bedrockModelPath(model, action);
  const sent = invoke
    ? bedrockInvokeBody(
      body,
      filterAnthropicBetas(hints.anthropicBetas, channel.anthropic_betas).kept,
    )
    : body;
  const headers = await bedrockAuthHeaders(channel, apiKey, {
    method: "POST",
    url,
    headers: {
      "content-type": "application/json",
      accept: stream ? "application/vnd.amazon.eventstream" : "application/json",
    },
    body: sent,
  });
  return { url, init: { method: "POST", headers, body: sent } };
}

/** The fields of a Converse body that CountTokens' `converse` input has (it refuses others). */
const CONVERSE_COUNTED_FIELDS = [
  "messages",
  "system",
  "toolConfig",
  "additionalModelRequestFields",
];

/**
 * The CountTokens body of `request` (a body of the channel's API for the model: Anthropic's for
 * `invoke`, Converse's for `converse`), counting what that call would send.
 */
export function bedrockCountTokensBody(
  request: Record<string, unknown>,
  input: { api: "invoke" | "converse"; betas: string[] },
): Record<string, unknown> {
  if (input.api === "invoke") {
    // A count asks no output (the gateway sends max_tokens 1), but thinking needs more than its budget.
    const budget = (request.thinking as { budget_tokens?: unknown } | undefined)?.budget_tokens;
    const counted = typeof budget === "number" && budget >= Number(request.max_tokens)
      ? { ...request, max_tokens: budget + 1 }
      : request;
    const body = bedrockInvokeBody(JSON.stringify(counted), input.betas);
    return { input: { invokeModel: { body: new TextEncoder().encode(body).toBase64() } } };
  }
  const converse = Object.fromEntries(
    CONVERSE_COUNTED_FIELDS.filter((field) => request[field] !== undefined)
      .map((field) => [field, request[field]]),
  );
  return { input: { converse } };
}

/** The count in a CountTokens answer (`{inputTokens}`). */
export function readBedrockTokenCount(text: string): TokenCount | undefined {
  const counted = readLenientJson(bedrockTokenCountSchema, text).inputTokens;
  return isTokenCount(counted) ? { input: counted } : undefined;
}

/** The signed CountTokens call of `request` on `target`. */
async function bedrockCountTokensRequest(
  target: UpstreamTarget,
  { request, hints }: { request: Record<string, unknown>; hints: ClientHints },
): Promise<UpstreamRequest> {
  const { channel, apiKey, model } = target;
  const url = channel.base_url + bedrockModelPath(bedrockCountingModel(model), "count-tokens");
  const body = JSON.stringify(bedrockCountTokensBody(request, {
    api: bedrockApiOf(channel, model),
    betas: filterAnthropicBetas(hints.anthropicBetas, channel.anthropic_betas).kept,
  }));
  const headers = await bedrockAuthHeaders(channel, apiKey, {
    method: "POST",
    url,
    headers: { "content-type": "application/json", accept: "application/json" },
    body,
  });
  return { url, init: { method: "POST", headers, body } };
}

/** The region in a Bedrock runtime endpoint's host name (`bedrock-runtime.us-east-1.amazonaws.com`). */
const ENDPOINT_REGION = /^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com$/;

/** Why a Bedrock channel's settings cannot work, named by the field to change; or undefined. */
export function bedrockChannelProblem(
  channel: Omit<ChannelInput, "keys">,
): { param: string; message: string } | undefined {
  if ((channel.bedrock_auth ?? "sigv4") === "sigv4" && !channel.region) {
    return {
      param: "region",
      message: "A bedrock channel signing with AWS access keys needs a region (such as " +
        "'us-east-1'), the region its base_url is in: SigV4 signs for one region",
    };
  }
  // AWS refuses a signature for another region than its endpoint's.
  const endpointRegion = ENDPOINT_REGION.exec(new URL(channel.base_url).hostname)?.[1];
  if (channel.region && endpointRegion && endpointRegion !== channel.region) {
    return {
      param: "region",
      message: `This bedrock channel's base_url is in ${endpointRegion} and its region is ` +
        `${channel.region}: AWS refuses a call signed for another region than its endpoint's`,
    };
  }
  return undefined;
}

/** What is wrong with `key` as a key of a Bedrock `channel` (quoting none of it), or undefined. */
export function bedrockKeyProblem(
  channel: Omit<ChannelInput, "keys">,
  key: string,
): string | undefined {
  if (channel.bedrock_auth === "api-key" || awsCredentialsOf(key)) return undefined;
  return "is not an AWS access key: with bedrock_auth 'sigv4' (the default) a key is " +
    "ACCESS_KEY_ID:SECRET_ACCESS_KEY, or ACCESS_KEY_ID:SECRET_ACCESS_KEY:SESSION_TOKEN; for " +
    "Bedrock API keys set bedrock_auth to 'api-key'";
}

export const bedrockProvider: Provider = {
  kinds: ["text", "embedding", "image"],
  baseUrlExample: "https://bedrock-runtime.us-east-1.amazonaws.com",
  appendedPaths: /\/model(\/.*)?$/,
  errors: AWS_ERRORS,
  modelList: BEDROCK_MODEL_LIST,
  settings: BEDROCK_FIELDS,
  channelProblem: bedrockChannelProblem,
  keyProblem: bedrockKeyProblem,
  text: {
    format: "anthropic",
    formatFor: bedrockFormatOf,
    request: bedrockRequest,
    countTokens: { request: bedrockCountTokensRequest, read: readBedrockTokenCount },
    // The call's URL says which API answered, and so what its events are.
    decodeStream: (response, options) =>
      framedEvents(
        response.body!,
        new AwsEventStreamFraming(
          response.url.endsWith("/converse-stream") ? converseEventOf : anthropicEventOf,
        ),
        options,
      ),
    removedHints: (channel, hints) =>
      filterAnthropicBetas(hints.anthropicBetas, channel.anthropic_betas).removed
        .map((beta) => `anthropic-beta=${beta}`),
  },
  embedding: bedrockEmbeddingProvider,
  image: bedrockImageProvider,
};
