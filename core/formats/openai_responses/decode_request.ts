/** Responses-API requests in neutral terms (pure). */

import {
  appendTurn,
  type NeutralMessage,
  type NeutralPart,
  type NeutralReasoning,
  type NeutralRequest,
  type NeutralToolChoice,
  optionRecorder,
  parseDataUrl,
  resultText,
} from "../neutral.ts";
import { REASONING_HISTORY_FIELD } from "../signature.ts";
import { flattenToolNames, type ToolNameMap, upstreamToolName } from "../tool_names.ts";
import { itemParts } from "./_item_parts.ts";
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
  "include",
  "prompt_cache_key",
  "prompt_cache_retention",
  "service_tier",
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
  fieldOf.reasoningHistory = REASONING_HISTORY_FIELD["openai-responses"];
  fieldOf.toolStrict = "tools[].strict";
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
      ...Object.keys(body).filter((field) => !READ.has(field) && body[field] != null),
      ...Object.keys(body.text ?? {}).filter((field) => field !== "format" && field !== "verbosity")
        .map((field) => `text.${field}`),
      ...includesOf(body).filter((value) => value !== ENCRYPTED_REASONING)
        .map((value) => `include[${value}]`),
      ...tools.dropped,
    ],
    toolNames,
  };
}

const ENCRYPTED_REASONING = "reasoning.encrypted_content";

function includesOf(body: Json): string[] {
  return Array.isArray(body.include) ? body.include.map(String) : [];
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
    case "reasoning":
      return { role: "assistant", parts: itemParts(item) };
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
  set("reasoning", reasoningOf(body.reasoning), "reasoning");
  const format = body.text?.format;
  if (format?.type === "json_object") set("responseFormat", { type: "json_object" }, "text.format");
  if (format?.type === "json_schema" && format.schema) {
    set("responseFormat", {
      type: "json_schema",
      name: format.name ?? "response",
      schema: format.schema,
      ...(typeof format.strict === "boolean" ? { strict: format.strict } : {}),
    }, "text.format");
  }
  set("verbosity", body.text?.verbosity, "text.verbosity");
  set("serviceTier", body.service_tier, "service_tier");
  set("promptCacheKey", body.prompt_cache_key, "prompt_cache_key");
  set("promptCacheRetention", body.prompt_cache_retention, "prompt_cache_retention");
  if (includesOf(body).includes(ENCRYPTED_REASONING)) {
    set("replayableReasoning", true, "include");
  }
  return { options, fieldOf };
}

const SUMMARIES = new Set(["auto", "concise", "detailed"]);

/** `reasoning: {effort, summary}`, or undefined when it asks for neither. */
function reasoningOf(reasoning: Json): NeutralReasoning | undefined {
  if (!reasoning || typeof reasoning !== "object") return undefined;
  const out: NeutralReasoning = {};
  if (typeof reasoning.effort === "string") out.effort = reasoning.effort;
  const summary = reasoning.summary ?? reasoning.generate_summary;
  if (SUMMARIES.has(summary)) out.summary = summary;
  return Object.keys(out).length ? out : undefined;
}
