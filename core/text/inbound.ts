/**
 * A text request as it came in, in its own format: the raw body (for a pass-through to an
 * upstream of the same format) and its neutral form, decoded only when a conversion needs it.
 */

import type { NeutralRequest } from "../formats/neutral.ts";
import type { InboundRequest } from "../formats/text_interface.ts";
import type { GeminiFraming } from "../formats/gemini/mod.ts";
import { decodeChatRequest } from "../formats/openai_chat/mod.ts";
import {
  decodeResponsesRequest,
  responsesOnlyFeature,
  responsesStrictFeature,
} from "../formats/openai_responses/mod.ts";
import { anthropicOnlyFeature, decodeAnthropicRequest } from "../formats/anthropic/mod.ts";
import { decodeGeminiRequest, geminiOnlyFeature } from "../formats/gemini/mod.ts";
import type { ChatRequest } from "../formats/openai_chat/request_schema.ts";
import {
  estimatePromptTokens,
  promptTokensUpperBound,
} from "../formats/openai_chat/estimate_tokens.ts";
import { estimateNeutralTokens, neutralTokensUpperBound } from "./estimate.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export interface TextInbound {
  /** The inbound format: a row of core/formats/interfaces.ts. */
  format: string;
  /** The public model id asked for. */
  model: string;
  stream: boolean;
  /** The request body as received (checked by the route's schema). */
  body: Json;
  /** The neutral form, decoded once on first use. */
  neutral(): NeutralRequest;
  /** A field that only an upstream of the same format can serve, or null. */
  exclusive: string | null;
  /**
   * A field that other formats drop and name (a hosted tool), or null: exclusive too when the
   * client (header `x-gateway-strict-fields: true`) or its key asks for strict fields.
   */
  strictExclusive: string | null;
  /** Whether the client asked for strict fields. */
  strictFields: boolean;
  /** Chat: whether the client asked for usage in the stream. */
  includeUsage: boolean;
  /** Gemini: how the client wants a stream framed. */
  framing: GeminiFraming;
  /** Output tokens the request allows, when it says. */
  maxOutputTokens: number | undefined;
  /** Upper bound and typical estimate of input tokens. */
  inputUpperBound(): number;
  inputEstimate(): number;
}

function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => value ??= make();
}

function fromNeutral(
  format: string,
  body: Json,
  model: string,
  stream: boolean,
  decode: () => NeutralRequest,
  exclusive: string | null,
  extra: Partial<TextInbound> = {},
): TextInbound {
  const neutral = lazy(decode);
  const inbound: TextInbound = {
    format,
    model,
    stream,
    body,
    neutral,
    exclusive,
    strictExclusive: null,
    strictFields: false,
    includeUsage: false,
    framing: "sse",
    maxOutputTokens: undefined,
    inputUpperBound: () => neutralTokensUpperBound(neutral()),
    inputEstimate: () => estimateNeutralTokens(neutral()),
    ...extra,
  };
  // The bill asks for each more than once (hold, settle); each walks the whole body.
  inbound.inputUpperBound = lazy(inbound.inputUpperBound);
  inbound.inputEstimate = lazy(inbound.inputEstimate);
  return inbound;
}

/** A request of a format the shared text route serves, as its interface read it. */
export function inboundFromRequest(
  format: string,
  { body, request }: { body: Json; request: InboundRequest },
): TextInbound {
  const { model, stream, decode, exclusive, strictExclusive, maxOutputTokens } = request;
  return fromNeutral(format, body, model, stream, decode, exclusive, {
    strictExclusive: strictExclusive ?? null,
    maxOutputTokens,
  });
}

export function chatInbound(body: ChatRequest): TextInbound {
  return fromNeutral(
    "openai-chat",
    body,
    body.model,
    body.stream === true,
    () => decodeChatRequest(body),
    (body.n ?? 1) > 1 ? "n" : null,
    {
      includeUsage: body.stream_options?.include_usage === true,
      maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
      inputUpperBound: () => promptTokensUpperBound(body),
      inputEstimate: () => estimatePromptTokens(body),
    },
  );
}

export function responsesInbound(body: Json): TextInbound {
  return fromNeutral(
    "openai-responses",
    body,
    body.model,
    body.stream === true,
    () => decodeResponsesRequest(body),
    responsesOnlyFeature(body),
    {
      maxOutputTokens: body.max_output_tokens ?? undefined,
      strictExclusive: responsesStrictFeature(body),
    },
  );
}

export function anthropicInbound(body: Json): TextInbound {
  return fromNeutral(
    "anthropic",
    body,
    body.model,
    body.stream === true,
    () => decodeAnthropicRequest(body),
    anthropicOnlyFeature(body),
    { maxOutputTokens: body.max_tokens },
  );
}

export function geminiInbound(
  body: Json,
  { model, stream, framing }: { model: string; stream: boolean; framing: GeminiFraming },
): TextInbound {
  return fromNeutral(
    "gemini",
    body,
    model,
    stream,
    () => decodeGeminiRequest(body, { model, stream }),
    geminiOnlyFeature(body),
    { framing, maxOutputTokens: body.generationConfig?.maxOutputTokens ?? undefined },
  );
}
