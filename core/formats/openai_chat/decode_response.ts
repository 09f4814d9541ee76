/** Chat completions in neutral terms (pure). */

import type { NeutralPart, NeutralResponse } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { chatStopReason } from "./_stop.ts";
import { chatUsage } from "./_usage.ts";
import { openAIChatCompletionSchema, openAIChatMessageSchema } from "./answer_schemas.ts";
import { readLenient } from "../../util/lenient_schema.ts";

/** An upstream chat completion in neutral terms. */
export function decodeChatResponse(json: unknown): NeutralResponse {
  const answer = readLenient(openAIChatCompletionSchema, json);
  const message = answer.choices[0]?.message ?? openAIChatMessageSchema.parse({});
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
  for (const call of message.tool_calls) {
    parts.push({
      type: "tool_call",
      id: call.id!,
      name: call.function?.name ?? "",
      arguments: call.function?.arguments ?? "",
    });
  }
  const finish = answer.choices[0]?.finish_reason;
  return {
    id: answer.id ?? "",
    model: answer.model ?? "",
    created: answer.created ?? Math.floor(Date.now() / 1000),
    parts,
    stop: stopWithCalls(
      message.refusal ? "content_filter" : chatStopReason(finish),
      parts.some((part) => part.type === "tool_call"),
    ),
    usage: chatUsage(answer.usage),
  };
}
