/**
 * The `bedrock` channel type: Anthropic's Claude on Amazon Bedrock, through InvokeModel and
 * InvokeModelWithResponseStream with native Anthropic bodies (the wire format is `anthropic`,
 * so the Anthropic provider's bodies and readers serve it unchanged).
 *
 * - `POST {base_url}/model/{modelId}/invoke` and `/invoke-with-response-stream`, the model id
 *   (`anthropic.claude-3-5-sonnet-20240620-v1:0`, an inference profile `us.anthropic.…`, or an
 *   ARN) URL-encoded in the path;
 * - the body is a messages body without `model` and `stream`, with
 *   `anthropic_version: "bedrock-2023-05-31"` and the client's betas as `anthropic_beta`;
 * - a stream is AWS's binary event stream: each `chunk` event's `bytes` is one Anthropic stream
 *   event (JSON, base64), and an exception frame is the stream's error;
 * - signed with SigV4 for the channel's `region`, or a Bedrock API key (bedrock_auth.ts).
 */

import type { ChannelInput } from "../channels/channel_schema.ts";
import type { ErrorDialect } from "../upstream/error_reader.ts";
import { framedEvents, type UpstreamEvent } from "../upstream/upstream_events.ts";
import { type AwsEventMessage, AwsEventStreamFraming } from "../upstream/aws_event_stream.ts";
import { readLenient } from "../util/lenient_schema.ts";
import { filterAnthropicBetas } from "./anthropic_betas.ts";
import { bedrockAuthHeaders } from "./bedrock_auth.ts";
import { awsErrorSchema, bedrockChunkSchema } from "./bedrock_schemas.ts";
import type { ClientHints } from "./client_hints.ts";
import type { Provider, UpstreamTarget } from "./provider.ts";

/** The `anthropic_version` Bedrock takes in an InvokeModel body. */
export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

/** The fields only Bedrock channels take. */
export const BEDROCK_FIELDS = ["region", "bedrock_auth"] as const;

/** `{"message": …}` (some services write `Message`); the error's name is in `x-amzn-ErrorType`. */
export const AWS_ERRORS: ErrorDialect = {
  read(body) {
    const { message, Message } = readLenient(awsErrorSchema, body);
    return { message: message ?? Message };
  },
};

/** The path of `modelId`'s call: the id is one path segment, `:` and `/` (ARNs) encoded. */
export function bedrockModelPath(modelId: string, action: string): string {
  return `/model/${encodeURIComponent(modelId)}/${action}`;
}

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

/**
 * One event-stream message of InvokeModelWithResponseStream as an Anthropic stream event: a
 * `chunk`'s decoded bytes (named by their `type`, as Anthropic's SSE names them), or for an
 * exception frame an Anthropic `error` event carrying AWS's exception name and message.
 */
export function anthropicEventOf(message: AwsEventMessage): UpstreamEvent | undefined {
  const text = new TextDecoder().decode(message.body);
  const kind = message.headers[":message-type"];
  if (kind === "exception" || kind === "error") {
    const name = message.headers[":exception-type"] ?? message.headers[":error-code"] ??
      "exception";
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = {};
    }
    const { message: said, Message } = readLenient(awsErrorSchema, parsed);
    const error = {
      type: "error",
      error: { type: name, message: said ?? Message ?? message.headers[":error-message"] ?? name },
    };
    return { event: "error", data: JSON.stringify(error) };
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

async function invokeRequest(
  target: UpstreamTarget,
  { stream, body, hints }: { stream: boolean; body: string; hints: ClientHints },
) {
  const { channel, apiKey, model } = target;
  const { kept } = filterAnthropicBetas(hints.anthropicBetas, channel.anthropic_betas);
  const url = channel.base_url +
    bedrockModelPath(model, stream ? "invoke-with-response-stream" : "invoke");
  const sent = bedrockInvokeBody(body, kept);
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
  return undefined;
}

export const bedrockProvider: Provider = {
  kinds: ["text"],
  baseUrlExample: "https://bedrock-runtime.us-east-1.amazonaws.com",
  appendedPaths: /\/model(\/.*)?$/,
  errors: AWS_ERRORS,
  settings: BEDROCK_FIELDS,
  channelProblem: bedrockChannelProblem,
  text: {
    format: "anthropic",
    request: invokeRequest,
    decodeStream: (response, options) =>
      framedEvents(response.body!, new AwsEventStreamFraming(anthropicEventOf), options),
    removedHints: (channel, hints) =>
      filterAnthropicBetas(hints.anthropicBetas, channel.anthropic_betas).removed
        .map((beta) => `anthropic-beta=${beta}`),
  },
};
