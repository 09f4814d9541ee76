/** Chat-completions answers to and from the neutral representation (pure). */

import type { NeutralPart, NeutralResponse, NeutralUsage, StopReason } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { convertOpenAIChatUsage } from "./convert_usage.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export function chatStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case "length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    default:
      return "stop";
  }
}

export function chatUsage(usage: Json): NeutralUsage | undefined {
  if (!usage || typeof usage !== "object") return undefined;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  return {
    ...convertOpenAIChatUsage(usage),
    ...(typeof reasoning === "number" ? { reasoning_tokens: reasoning } : {}),
  };
}

export function encodeChatUsage(usage: NeutralUsage) {
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.input_tokens + usage.output_tokens,
    prompt_tokens_details: { cached_tokens: usage.cached_input_tokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
  };
}

/** An upstream chat completion in neutral terms. */
export function decodeChatResponse(answer: Json): NeutralResponse {
  const message = answer?.choices?.[0]?.message ?? {};
  const parts: NeutralPart[] = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning === "string" && reasoning) {
    parts.push({ type: "reasoning", text: reasoning });
  }
  if (typeof message.content === "string" && message.content) {
    parts.push({ type: "text", text: message.content });
  }
  if (typeof message.refusal === "string" && message.refusal) {
    parts.push({ type: "text", text: message.refusal });
  }
  for (const call of message.tool_calls ?? []) {
    parts.push({
      type: "tool_call",
      id: call.id,
      name: call.function?.name ?? "",
      arguments: call.function?.arguments ?? "",
    });
  }
  const finish = answer?.choices?.[0]?.finish_reason;
  return {
    id: answer?.id ?? "",
    model: answer?.model ?? "",
    created: answer?.created ?? Math.floor(Date.now() / 1000),
    parts,
    stop: stopWithCalls(
      message.refusal ? "content_filter" : chatStopReason(finish),
      parts.some((part) => part.type === "tool_call"),
    ),
    usage: chatUsage(answer?.usage),
  };
}

/** A neutral answer as a chat completion for the client. */
export function encodeChatResponse(answer: NeutralResponse, model: string): Json {
  const text = answer.parts.filter((part) => part.type === "text")
    .map((part) => (part as { text: string }).text).join("");
  const reasoning = answer.parts.filter((part) => part.type === "reasoning")
    .map((part) => (part as { text: string }).text).join("");
  const calls = answer.parts.filter((part) => part.type === "tool_call");
  const images = answer.parts.filter((part) => part.type === "image");
  const message: Json = { role: "assistant", content: text || (calls.length ? null : "") };
  if (reasoning) message.reasoning_content = reasoning;
  if (calls.length) {
    message.tool_calls = calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments || "{}" },
    }));
  }
  if (images.length) {
    message.images = images.map((image) => ({
      type: "image_url",
      image_url: { url: `data:${image.mimeType};base64,${image.data}` },
    }));
  }
  return {
    id: answer.id.startsWith("chatcmpl") ? answer.id : `chatcmpl-${answer.id}`,
    object: "chat.completion",
    created: answer.created,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: answer.stop }],
    ...(answer.usage ? { usage: encodeChatUsage(answer.usage) } : {}),
  };
}
