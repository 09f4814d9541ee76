/**
 * A text request as it came in, in its own format: the raw body (for a pass-through to an
 * upstream of the same format) and its neutral form, decoded only when a conversion needs it.
 * What a body asks for is read by its format's interface (core/formats/<format>/interface.ts).
 */

import type { NeutralRequest } from "../formats/neutral.ts";
import type { GeminiFraming } from "../formats/gemini/mod.ts";
import type { RequestPath } from "../formats/text_interface.ts";
import { textInterfaceOf } from "../formats/interfaces.ts";
import type { ChatRequest } from "../formats/openai_chat/request_schema.ts";
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

/**
 * `body` of `format` (checked by its route's schema) as the text service takes it: what the
 * format's interface reads from it, `path` where the route carries the model.
 */
export function inboundOf(format: string, body: Json, path?: RequestPath): TextInbound {
  const request = textInterfaceOf(format).readRequest(body, path);
  const neutral = lazy(request.decode);
  return {
    format,
    model: request.model,
    stream: request.stream,
    body,
    neutral,
    exclusive: request.exclusive,
    strictExclusive: request.strictExclusive ?? null,
    strictFields: false,
    includeUsage: request.includeUsage ?? false,
    framing: request.framing ?? "sse",
    maxOutputTokens: request.maxOutputTokens,
    // The bill asks for each more than once (hold, settle); each walks the whole body.
    inputUpperBound: lazy(request.inputUpperBound ?? (() => neutralTokensUpperBound(neutral()))),
    inputEstimate: lazy(request.inputEstimate ?? (() => estimateNeutralTokens(neutral()))),
  };
}

export function chatInbound(body: ChatRequest): TextInbound {
  return inboundOf("openai-chat", body);
}

export function responsesInbound(body: Json): TextInbound {
  return inboundOf("openai-responses", body);
}

export function anthropicInbound(body: Json): TextInbound {
  return inboundOf("anthropic", body);
}

export function geminiInbound(body: Json, path: RequestPath): TextInbound {
  return inboundOf("gemini", body, path);
}
