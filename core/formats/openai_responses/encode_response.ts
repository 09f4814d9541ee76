/** Neutral answers as responses-API response objects (pure). */

import { argumentsObject, type NeutralPart, type NeutralResponse } from "../neutral.ts";
import { newItemId } from "./_ids.ts";
import { responseObject } from "./_response_object.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The text input of a free-form (custom) tool call made as a function call of `{input}`. */
export function freeformInput(args: string): string {
  const input = argumentsObject(args).input;
  return typeof input === "string" ? input : args;
}

/** The output items of neutral parts, as a response lists them. */
export function outputItems(parts: NeutralPart[]): Json[] {
  const items: Json[] = [];
  for (const part of parts) {
    const last = items.at(-1);
    if (part.type === "text" && last?.type === "message") last.content[0].text += part.text;
    else {
      const item = itemOf(part);
      if (item) items.push(item);
    }
  }
  return items;
}

/** A part as a new output item, or undefined for parts a response does not list. */
function itemOf(part: NeutralPart): Json | undefined {
  switch (part.type) {
    case "text":
      return {
        id: newItemId("msg"),
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: part.text, annotations: [], logprobs: [] }],
      };
    case "reasoning":
      return {
        id: newItemId("rs"),
        type: "reasoning",
        summary: part.text ? [{ type: "summary_text", text: part.text }] : [],
        ...(part.signature ? { encrypted_content: part.signature } : {}),
      };
    case "tool_call":
      return part.freeform
        ? {
          id: newItemId("ctc"),
          type: "custom_tool_call",
          status: "completed",
          call_id: part.id,
          name: part.name,
          input: freeformInput(part.arguments),
          ...(part.namespace !== undefined ? { namespace: part.namespace } : {}),
        }
        : {
          id: newItemId("fc"),
          type: "function_call",
          status: "completed",
          call_id: part.id,
          name: part.name,
          arguments: part.arguments || "{}",
          ...(part.namespace !== undefined ? { namespace: part.namespace } : {}),
        };
    case "image":
      return {
        id: newItemId("ig"),
        type: "image_generation_call",
        status: "completed",
        result: part.data,
      };
    default:
      return undefined;
  }
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
