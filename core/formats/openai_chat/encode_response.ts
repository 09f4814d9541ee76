/** Neutral answers as chat completions (pure). */

import type { NeutralResponse } from "../neutral.ts";
import { encodeChatUsage } from "./_usage.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** A neutral answer as a chat completion for the client. */
export function encodeChatResponse(answer: NeutralResponse, model: string): Json {
  const text = answer.parts.filter((part) => part.type === "text")
    .map((part) => (part as { text: string }).text).join("");
  const reasoning = answer.parts.filter((part) => part.type === "reasoning")
    .map((part) => (part as { text: string }).text).join("");
  const calls = answer.parts.filter((part) => part.type === "tool_call");
  const images = answer.parts.filter((part) => part.type === "image");
  // `refusal` is required (nullable) in OpenAI's definition; a converted refusal is text here.
  const message: Json = {
    role: "assistant",
    content: text || (calls.length ? null : ""),
    refusal: null,
    annotations: [],
  };
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
