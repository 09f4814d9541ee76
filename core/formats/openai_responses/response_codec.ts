/** Responses-API answers to and from the neutral representation (pure). */

import type { NeutralPart, NeutralResponse, NeutralUsage, StopReason } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { randomBase62 } from "../../util/ids.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export function responsesUsage(usage: Json): NeutralUsage | undefined {
  if (!usage || typeof usage !== "object") return undefined;
  const input = Math.max(0, usage.input_tokens ?? 0);
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return {
    input_tokens: input,
    cached_input_tokens: Math.min(
      input,
      Math.max(0, usage.input_tokens_details?.cached_tokens ?? 0),
    ),
    output_tokens: Math.max(0, usage.output_tokens ?? 0),
    ...(typeof reasoning === "number" ? { reasoning_tokens: reasoning } : {}),
  };
}

export function encodeResponsesUsage(usage: NeutralUsage) {
  return {
    input_tokens: usage.input_tokens,
    input_tokens_details: { cached_tokens: usage.cached_input_tokens },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
}

/** The stop reason of a finished response object. */
export function responsesStop(response: Json, madeCalls: boolean): StopReason {
  if (response?.status === "incomplete") {
    return response.incomplete_details?.reason === "content_filter" ? "content_filter" : "length";
  }
  return stopWithCalls("stop", madeCalls);
}

/** The parts of one output item. */
export function itemParts(item: Json): NeutralPart[] {
  switch (item?.type) {
    case "message":
      return (item.content ?? []).flatMap((part: Json): NeutralPart[] =>
        part?.type === "output_text"
          ? [{ type: "text", text: part.text ?? "" }]
          : part?.type === "refusal"
          ? [{ type: "text", text: part.refusal ?? "" }]
          : []
      );
    case "reasoning": {
      const text = [...(item.summary ?? []), ...(item.content ?? [])]
        .map((part: Json) => part?.text ?? "").join("\n");
      return [{
        type: "reasoning",
        text,
        ...(item.encrypted_content ? { signature: item.encrypted_content } : {}),
      }];
    }
    case "function_call":
      return [{
        type: "tool_call",
        id: item.call_id,
        name: item.name,
        arguments: item.arguments ?? "",
      }];
    case "image_generation_call":
      return item.result ? [{ type: "image", mimeType: "image/png", data: item.result }] : [];
    default:
      return [];
  }
}

/** An upstream response object in neutral terms. */
export function decodeResponsesResponse(answer: Json): NeutralResponse {
  const parts = (answer?.output ?? []).flatMap(itemParts);
  const refused = (answer?.output ?? []).some((item: Json) =>
    (item?.content ?? []).some((part: Json) => part?.type === "refusal")
  );
  return {
    id: answer?.id ?? "",
    model: answer?.model ?? "",
    created: answer?.created_at ?? Math.floor(Date.now() / 1000),
    parts,
    stop: refused
      ? "content_filter"
      : responsesStop(answer, parts.some((part: NeutralPart) => part.type === "tool_call")),
    usage: responsesUsage(answer?.usage),
  };
}

export function newItemId(prefix: string): string {
  return `${prefix}_${randomBase62(24)}`;
}

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

/** The response object around `output`. */
export function responseObject(fields: {
  id: string;
  created: number;
  model: string;
  status: "in_progress" | "completed" | "incomplete";
  output: Json[];
  stop?: StopReason;
  usage?: NeutralUsage;
}): Json {
  return {
    id: fields.id,
    object: "response",
    created_at: fields.created,
    status: fields.status,
    error: null,
    incomplete_details: fields.status === "incomplete"
      ? { reason: fields.stop === "content_filter" ? "content_filter" : "max_output_tokens" }
      : null,
    model: fields.model,
    output: fields.output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage: fields.usage ? encodeResponsesUsage(fields.usage) : null,
  };
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
