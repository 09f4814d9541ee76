/** Neutral answers as messages-API answers (pure). */

import type { NeutralResponse } from "../neutral.ts";
import { argumentsObject } from "../neutral.ts";
import { newMessageId } from "./_ids.ts";
import { ANTHROPIC_STOP, anthropicStopDetails } from "./_stop.ts";
import { encodeAnthropicUsage } from "./_usage.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

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
    stop_details: anthropicStopDetails(answer.stop),
    container: null,
    diagnostics: null,
    usage: encodeAnthropicUsage(
      answer.usage ?? { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0 },
    ),
  };
}
