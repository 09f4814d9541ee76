/** Responses-API requests in neutral terms (pure). */

import {
  appendTurn,
  type NeutralMessage,
  type NeutralPart,
  type NeutralRequest,
  type NeutralToolChoice,
  optionRecorder,
  parseDataUrl,
  resultText,
} from "../neutral.ts";
import { flattenToolNames, type ToolNameMap, upstreamToolName } from "../tool_names.ts";
import { hostedToolsOf, type RequestTools, toolsOfRequest } from "./request_tools.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const READ = new Set([
  "model",
  "input",
  "instructions",
  "stream",
  "tools",
  "tool_choice",
  "max_output_tokens",
  "temperature",
  "top_p",
  "user",
  "safety_identifier",
  "parallel_tool_calls",
  "reasoning",
  "text",
  "store",
]);

/**
 * Why a responses request needs a responses upstream, or null: state kept by the upstream
 * (previous_response_id, conversation, stored prompts, background runs) exists only there.
 * Hosted tools (`web_search`…) are dropped elsewhere unless the client asks for strict fields:
 * `responsesStrictFeature`.
 */
export function responsesOnlyFeature(body: Json): string | null {
  for (const field of ["previous_response_id", "conversation", "prompt", "background"]) {
    if (body[field] !== undefined && body[field] !== null && body[field] !== false) return field;
  }
  return null;
}

/** The first hosted tool, which only a responses upstream runs (refused in strict mode). */
export function responsesStrictFeature(body: Json): string | null {
  return hostedToolsOf(body.tools)[0] ?? null;
}

function inputParts(content: Json): NeutralPart[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) return [];
  const parts: NeutralPart[] = [];
  for (const part of content) {
    if (part?.type === "input_text" || part?.type === "output_text" || part?.type === "text") {
      parts.push({ type: "text", text: part.text ?? "" });
    } else if (part?.type === "refusal") {
      parts.push({ type: "text", text: part.refusal ?? "" });
    } else if (part?.type === "input_image" && typeof part.image_url === "string") {
      const data = parseDataUrl(part.image_url);
      parts.push(data ? { type: "image", ...data } : { type: "image_url", url: part.image_url });
    }
  }
  return parts;
}

function toolChoiceOf(choice: Json, names: ToolNameMap): NeutralToolChoice | undefined {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if ((choice?.type === "function" || choice?.type === "custom") && choice.name) {
    return { name: upstreamToolName(names, choice) };
  }
  return undefined;
}

/** A responses body in neutral terms. */
export function decodeResponsesRequest(body: Json): NeutralRequest {
  const system: string[] = [];
  if (typeof body.instructions === "string" && body.instructions) system.push(body.instructions);
  const tools: RequestTools = toolsOfRequest(body.tools);
  const toolNames = flattenToolNames(tools.declared);
  const messages = turnsOf(body, { system, toolNames });
  const { options, fieldOf } = optionsOf(body);
  return {
    model: body.model,
    system,
    messages,
    tools: tools.neutral.map((tool, index) => ({
      ...tool,
      name: upstreamToolName(toolNames, tools.declared[index]),
    })),
    toolChoice: toolChoiceOf(body.tool_choice, toolNames),
    stream: body.stream === true,
    options,
    fieldOf,
    unmapped: [
      ...Object.keys(body).filter((field) =>
        !READ.has(field) && body[field] != null && field !== "store"
      ),
      ...tools.dropped,
    ],
    toolNames,
  };
}

/** The turns of the input items; system and developer messages go to `system`. */
function turnsOf(
  body: Json,
  { system, toolNames }: { system: string[]; toolNames: ToolNameMap },
): NeutralMessage[] {
  const messages: NeutralMessage[] = [];
  const items = typeof body.input === "string"
    ? [{ role: "user", content: body.input }]
    : body.input ?? [];
  for (const item of items) {
    const type = item?.type ?? "message";
    if (type === "message" && (item.role === "system" || item.role === "developer")) {
      system.push(
        inputParts(item.content).map((part) => (part as { text?: string }).text ?? "").join(""),
      );
      continue;
    }
    const turn = turnOf(type, item, toolNames);
    if (turn && turn.parts.length) appendTurn(messages, { role: turn.role, parts: turn.parts });
  }
  return messages;
}

/** One input item (other than a system message) as a turn, or undefined when it is none. */
function turnOf(type: unknown, item: Json, toolNames: ToolNameMap): NeutralMessage | undefined {
  switch (type) {
    case "message":
      return {
        role: item.role === "assistant" ? "assistant" : "user",
        parts: inputParts(item.content),
      };
    case "function_call":
      return {
        role: "assistant",
        parts: [{
          type: "tool_call",
          id: item.call_id,
          name: upstreamToolName(toolNames, item),
          arguments: item.arguments ?? "",
        }],
      };
    case "custom_tool_call":
      return {
        role: "assistant",
        parts: [{
          type: "tool_call",
          id: item.call_id,
          name: upstreamToolName(toolNames, item),
          arguments: JSON.stringify({ input: item.input ?? "" }),
        }],
      };
    case "function_call_output":
    case "custom_tool_call_output":
      return {
        role: "user",
        parts: [{ type: "tool_result", callId: item.call_id, content: resultText(item.output) }],
      };
    case "reasoning": {
      const text = (item.summary ?? []).map((part: Json) => part?.text ?? "").join("\n");
      return {
        role: "assistant",
        parts: [{
          type: "reasoning",
          text,
          ...(item.encrypted_content ? { signature: item.encrypted_content } : {}),
        }],
      };
    }
    default:
      return undefined;
  }
}

function optionsOf(body: Json): Pick<NeutralRequest, "options" | "fieldOf"> {
  const { options, fieldOf, set } = optionRecorder();
  set("maxOutputTokens", body.max_output_tokens, "max_output_tokens");
  set("temperature", body.temperature, "temperature");
  set("topP", body.top_p, "top_p");
  set("user", body.user ?? body.safety_identifier, body.user ? "user" : "safety_identifier");
  set("parallelToolCalls", body.parallel_tool_calls, "parallel_tool_calls");
  if (body.reasoning?.effort) set("reasoning", { effort: body.reasoning.effort }, "reasoning");
  const format = body.text?.format;
  if (format?.type === "json_object") set("responseFormat", { type: "json_object" }, "text.format");
  if (format?.type === "json_schema" && format.schema) {
    set("responseFormat", {
      type: "json_schema",
      name: format.name ?? "response",
      schema: format.schema,
    }, "text.format");
  }
  return { options, fieldOf };
}
