/** Neutral answers as responses-API response objects (pure). */

import type { NeutralPart, NeutralResponse } from "../neutral.ts";
import { newItemId } from "./_ids.ts";
import { responseObject } from "./_response_object.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The output items of neutral parts, as a response lists them. */
export function outputItems(parts: NeutralPart[]): Json[] {
  const items: Json[] = [];
  for (const part of parts) {
    const last = items.at(-1);
    if (part.type === "text") {
      if (last?.type === "message") last.content[0].text += part.text;
      else {
        items.push({
          id: newItemId("msg"),
          type: "message",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: part.text, annotations: [] }],
        });
      }
    } else if (part.type === "reasoning") {
      items.push({
        id: newItemId("rs"),
        type: "reasoning",
        summary: part.text ? [{ type: "summary_text", text: part.text }] : [],
        ...(part.signature ? { encrypted_content: part.signature } : {}),
      });
    } else if (part.type === "tool_call") {
      items.push({
        id: newItemId("fc"),
        type: "function_call",
        status: "completed",
        call_id: part.id,
        name: part.name,
        arguments: part.arguments || "{}",
      });
    } else if (part.type === "image") {
      items.push({
        id: newItemId("ig"),
        type: "image_generation_call",
        status: "completed",
        result: part.data,
      });
    }
  }
  return items;
}

/** A neutral answer as a response object for the client. */
export function encodeResponsesResponse(answer: NeutralResponse, model: string): Json {
  const incomplete = answer.stop === "length" || answer.stop === "content_filter";
  return responseObject({
    id: answer.id.startsWith("resp_") ? answer.id : `resp_${answer.id}`,
    created: answer.created,
    model,
    status: incomplete ? "incomplete" : "completed",
    output: outputItems(answer.parts),
    stop: answer.stop,
    usage: answer.usage,
  });
}
