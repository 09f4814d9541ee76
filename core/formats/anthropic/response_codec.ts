/** Messages-API answers to and from the neutral representation (pure). */

import type { NeutralPart, NeutralResponse, NeutralUsage, StopReason } from "../neutral.ts";
import { argumentsObject, stopWithCalls } from "../neutral.ts";
import { randomBase62 } from "../../util/ids.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export function anthropicStop(reason: string | null | undefined): StopReason {
  switch (reason) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      return "stop";
  }
}

export const ANTHROPIC_STOP: Record<StopReason, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  content_filter: "refusal",
};

/** Anthropic counts cache reads and writes apart from `input_tokens`; they are all input. */
export function anthropicUsage(usage: Json): NeutralUsage | undefined {
  if (!usage || typeof usage !== "object") return undefined;
  const cacheRead = Math.max(0, usage.cache_read_input_tokens ?? 0);
  const cacheWrite = Math.max(0, usage.cache_creation_input_tokens ?? 0);
  return {
    input_tokens: Math.max(0, usage.input_tokens ?? 0) + cacheRead + cacheWrite,
    cached_input_tokens: cacheRead,
    output_tokens: Math.max(0, usage.output_tokens ?? 0),
  };
}

export function encodeAnthropicUsage(usage: NeutralUsage) {
  return {
    input_tokens: usage.input_tokens - usage.cached_input_tokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: usage.cached_input_tokens,
    output_tokens: usage.output_tokens,
  };
}

export function decodeAnthropicResponse(answer: Json): NeutralResponse {
  const parts: NeutralPart[] = [];
  for (const block of answer?.content ?? []) {
    if (block?.type === "text") parts.push({ type: "text", text: block.text ?? "" });
    else if (block?.type === "thinking") {
      parts.push({ type: "reasoning", text: block.thinking ?? "", signature: block.signature });
    } else if (block?.type === "tool_use") {
      parts.push({
        type: "tool_call",
        id: block.id,
        name: block.name,
        arguments: JSON.stringify(block.input ?? {}),
      });
    }
  }
  return {
    id: answer?.id ?? "",
    model: answer?.model ?? "",
    created: Math.floor(Date.now() / 1000),
    parts,
    stop: stopWithCalls(
      anthropicStop(answer?.stop_reason),
      parts.some((part) => part.type === "tool_call"),
    ),
    usage: anthropicUsage(answer?.usage),
  };
}

export function newMessageId(id: string): string {
  return id.startsWith("msg_") ? id : `msg_${id || randomBase62(24)}`;
}

export function encodeAnthropicResponse(answer: NeutralResponse, model: string): Json {
  const content: Json[] = [];
  for (const part of answer.parts) {
    if (part.type === "reasoning") {
      content.push({ type: "thinking", thinking: part.text, signature: part.signature ?? "" });
    } else if (part.type === "text") {
      const last = content.at(-1);
      if (last?.type === "text") last.text += part.text;
      else content.push({ type: "text", text: part.text });
    } else if (part.type === "tool_call") {
      content.push({
        type: "tool_use",
        id: part.id,
        name: part.name,
        input: argumentsObject(part.arguments),
      });
    }
  }
  return {
    id: newMessageId(answer.id),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: ANTHROPIC_STOP[answer.stop],
    stop_sequence: null,
    usage: encodeAnthropicUsage(
      answer.usage ?? { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0 },
    ),
  };
}
