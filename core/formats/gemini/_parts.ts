/** A candidate's generate-content parts in neutral terms. */

import type { NeutralPart } from "../neutral.ts";
import { signatureFrom } from "../signature.ts";
import { newCallId } from "./_ids.ts";
import type { GeminiPart } from "./answer_schemas.ts";

/** A thought part as neutral reasoning, its signature labelled. */
export function thoughtOf(part: GeminiPart): NeutralPart {
  return {
    type: "reasoning",
    text: part.text ?? "",
    signature: signatureFrom(part.thoughtSignature ?? "", { format: "gemini" }),
  };
}

/**
 * The thought signature Gemini put on a part that is not a thought (a function call, a text), as
 * a reasoning part of its own to go before it: formats other than Gemini have no place for a
 * signature on a call, and Gemini wants it back on the same part (encode_request.ts puts it there).
 */
export function signatureBefore(part: GeminiPart): NeutralPart | undefined {
  if (part?.thought || !part?.thoughtSignature) return undefined;
  const signature = signatureFrom(part.thoughtSignature, { format: "gemini" });
  return signature ? { type: "reasoning", text: "", signature } : undefined;
}

/** The neutral parts of one candidate's parts. */
export function geminiParts(parts: GeminiPart[]): NeutralPart[] {
  const out: NeutralPart[] = [];
  for (const part of parts ?? []) {
    const signature = signatureBefore(part);
    if (signature) out.push(signature);
    if (typeof part?.text === "string") {
      out.push(part.thought ? thoughtOf(part) : { type: "text", text: part.text });
    } else if (part?.functionCall) {
      out.push({
        type: "tool_call",
        id: part.functionCall.id ?? newCallId(),
        name: part.functionCall.name!,
        arguments: JSON.stringify(part.functionCall.args ?? {}),
      });
    } else if (part?.inlineData) {
      out.push({
        type: "image",
        mimeType: part.inlineData.mimeType!,
        data: part.inlineData.data!,
      });
    }
  }
  return out;
}
