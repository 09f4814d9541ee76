/** Responses-API output items in neutral terms. */

import type { NeutralPart } from "../neutral.ts";
import { signatureFrom } from "../signature.ts";
import type { ResponsesOutputItem } from "./answer_schemas.ts";

/** The parts of one output item (an upstream's, or a reasoning item of a client's history). */
export function itemParts(item: ResponsesOutputItem): NeutralPart[] {
  switch (item.type) {
    case "message":
      return (item.content ?? []).flatMap((part): NeutralPart[] =>
        part?.type === "output_text"
          ? [{ type: "text", text: part.text ?? "" }]
          : part?.type === "refusal"
          ? [{ type: "text", text: part.refusal ?? "" }]
          : []
      );
    case "reasoning": {
      const text = [...(item.summary ?? []), ...(item.content ?? [])]
        .map((part) => part?.text ?? "").join("\n");
      const signature = signatureFrom(item.encrypted_content ?? "", {
        format: "openai-responses",
      });
      return [{ type: "reasoning", text, ...(signature ? { signature } : {}) }];
    }
    case "function_call":
      return [{
        type: "tool_call",
        id: item.call_id!,
        name: item.name!,
        arguments: item.arguments ?? "",
      }];
    case "image_generation_call":
      return item.result ? [{ type: "image", mimeType: "image/png", data: item.result }] : [];
    default:
      return [];
  }
}
