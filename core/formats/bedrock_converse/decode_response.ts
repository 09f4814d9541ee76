/** Converse answers in neutral terms (pure). */

import type { NeutralPart, NeutralResponse } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { signatureFrom } from "../signature.ts";
import { readLenient } from "../../util/lenient_schema.ts";
import { converseAnswerSchema } from "./answer_schemas.ts";
import { converseStop } from "./_stop.ts";
import { converseUsage } from "./_usage.ts";

/** A Converse answer in neutral terms (it has no id or model of its own). */
export function decodeConverseResponse(json: unknown): NeutralResponse {
  const answer = readLenient(converseAnswerSchema, json);
  const parts: NeutralPart[] = [];
  for (const block of answer.output?.message?.content ?? []) {
    if (block.text !== undefined) parts.push({ type: "text", text: block.text });
    else if (block.toolUse) {
      parts.push({
        type: "tool_call",
        id: block.toolUse.toolUseId ?? "",
        name: block.toolUse.name ?? "",
        arguments: JSON.stringify(block.toolUse.input ?? {}),
      });
    } else if (block.reasoningContent?.reasoningText) {
      const { text, signature } = block.reasoningContent.reasoningText;
      parts.push({
        type: "reasoning",
        text: text ?? "",
        signature: signatureFrom(signature ?? "", { format: "bedrock-converse" }),
      });
    } else if (block.reasoningContent?.redactedContent) {
      parts.push({
        type: "reasoning",
        text: "",
        signature: signatureFrom(block.reasoningContent.redactedContent, {
          format: "bedrock-converse",
          kind: "redacted",
        }),
      });
    }
  }
  return {
    id: "",
    model: "",
    created: Math.floor(Date.now() / 1000),
    parts,
    stop: stopWithCalls(
      converseStop(answer.stopReason),
      parts.some((part) => part.type === "tool_call"),
    ),
    usage: converseUsage(answer.usage),
  };
}
