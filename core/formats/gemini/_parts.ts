/** A candidate's generate-content parts in neutral terms. */

import type { NeutralPart } from "../neutral.ts";
import { newCallId } from "./_ids.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The neutral parts of one candidate's parts. */
export function geminiParts(parts: Json[]): NeutralPart[] {
  const out: NeutralPart[] = [];
  for (const part of parts ?? []) {
    if (typeof part?.text === "string") {
      out.push(
        part.thought
          ? { type: "reasoning", text: part.text, signature: part.thoughtSignature }
          : { type: "text", text: part.text },
      );
    } else if (part?.functionCall) {
      out.push({
        type: "tool_call",
        id: part.functionCall.id ?? newCallId(),
        name: part.functionCall.name,
        arguments: JSON.stringify(part.functionCall.args ?? {}),
      });
    } else if (part?.inlineData) {
      out.push({ type: "image", mimeType: part.inlineData.mimeType, data: part.inlineData.data });
    }
  }
  return out;
}
