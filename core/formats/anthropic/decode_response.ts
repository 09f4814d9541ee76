/** Messages-API answers in neutral terms (pure). */

import type { NeutralPart, NeutralResponse } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { anthropicStop } from "./_stop.ts";
import { anthropicUsage } from "./_usage.ts";
import { signatureFrom } from "../signature.ts";
import { anthropicMessageSchema } from "./answer_schemas.ts";
import { readLenient } from "../../util/lenient_schema.ts";

/** An upstream message in neutral terms. */
export function decodeAnthropicResponse(json: unknown): NeutralResponse {
  const answer = readLenient(anthropicMessageSchema, json);
  const parts: NeutralPart[] = [];
  for (const block of answer.content) {
    if (block.type === "text") parts.push({ type: "text", text: block.text ?? "" });
    else if (block.type === "thinking") {
      parts.push({
        type: "reasoning",
        text: block.thinking ?? "",
        signature: signatureFrom(block.signature ?? "", { format: "anthropic" }),
      });
    } else if (block.type === "redacted_thinking") {
      parts.push({
        type: "reasoning",
        text: "",
        signature: signatureFrom(block.data ?? "", { format: "anthropic", kind: "redacted" }),
      });
    } else if (block.type === "tool_use") {
      parts.push({
        type: "tool_call",
        id: block.id!,
        name: block.name!,
        arguments: JSON.stringify(block.input ?? {}),
      });
    }
  }
  return {
    id: answer.id ?? "",
    model: answer.model ?? "",
    created: Math.floor(Date.now() / 1000),
    parts,
    stop: stopWithCalls(
      anthropicStop(answer.stop_reason),
      parts.some((part) => part.type === "tool_call"),
    ),
    usage: anthropicUsage(answer.usage),
  };
}
