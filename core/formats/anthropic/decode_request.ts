/** Messages-API requests in neutral terms (pure). */

import {
  appendTurn,
  type NeutralMessage,
  type NeutralPart,
  type NeutralReasoning,
  type NeutralRequest,
  type NeutralTool,
  type NeutralToolChoice,
  optionRecorder,
  resultText,
} from "../neutral.ts";
import { REASONING_HISTORY_FIELD, signatureFrom } from "../signature.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const READ = new Set([
  "model",
  "messages",
  "system",
  "max_tokens",
  "stream",
  "tools",
  "tool_choice",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "metadata",
  "thinking",
  "output_config",
  "output_format",
]);

/** Tools the messages API runs itself (web search, code execution, …): only on its own channels. */
function isServerTool(tool: Json): boolean {
  return typeof tool?.type === "string" && tool.type !== "custom";
}

/** Why a messages request needs an anthropic upstream, or null. */
export function anthropicOnlyFeature(body: Json): string | null {
  const server = (body.tools ?? []).find(isServerTool);
  if (server) return `tools[type=${server.type}]`;
  for (const field of ["mcp_servers", "container"]) if (body[field]) return field;
  return null;
}

function blocksOf(content: Json): Json[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content ?? [];
}

function partOf(block: Json): NeutralPart | null {
  switch (block?.type) {
    case "text":
      return { type: "text", text: block.text ?? "" };
    case "image": {
      const source = block.source ?? {};
      if (source.type === "base64") {
        return { type: "image", mimeType: source.media_type, data: source.data };
      }
      return source.type === "url" ? { type: "image_url", url: source.url } : null;
    }
    case "tool_use":
      return {
        type: "tool_call",
        id: block.id,
        name: block.name,
        arguments: JSON.stringify(block.input ?? {}),
      };
    case "tool_result":
      return {
        type: "tool_result",
        callId: block.tool_use_id,
        content: resultText(block.content),
        ...(block.is_error ? { isError: true } : {}),
      };
    case "thinking":
      return {
        type: "reasoning",
        text: block.thinking ?? "",
        signature: signatureFrom(block.signature ?? "", { format: "anthropic" }),
      };
    case "redacted_thinking":
      return {
        type: "reasoning",
        text: "",
        signature: signatureFrom(block.data ?? "", { format: "anthropic", kind: "redacted" }),
      };
    default:
      return null;
  }
}

function toolChoiceOf(choice: Json): NeutralToolChoice | undefined {
  switch (choice?.type) {
    case "auto":
      return "auto";
    case "any":
      return "required";
    case "none":
      return "none";
    case "tool":
      return { name: choice.name };
    default:
      return undefined;
  }
}

/** A messages body in neutral terms. */
export function decodeAnthropicRequest(body: Json): NeutralRequest {
  const system = typeof body.system === "string"
    ? [body.system]
    : (body.system ?? []).map((block: Json) => block?.text ?? "");
  const messages: NeutralMessage[] = [];
  for (const message of body.messages ?? []) {
    // A system message inside the conversation (a beta) joins the system text, as chat's do.
    if (message.role === "system") {
      system.push(blocksOf(message.content).map((block: Json) => block?.text ?? "").join(""));
      continue;
    }
    const role = message.role === "assistant" ? "assistant" : "user";
    const parts = blocksOf(message.content).map(partOf).filter((part): part is NeutralPart =>
      part !== null
    );
    appendTurn(messages, { role, parts });
  }
  const { options, fieldOf } = optionsOf(body);
  fieldOf.reasoningHistory = REASONING_HISTORY_FIELD.anthropic;
  fieldOf.toolStrict = "tools[].strict";
  return {
    model: body.model,
    system,
    messages,
    tools: toolsOf(body),
    toolChoice: toolChoiceOf(body.tool_choice),
    stream: body.stream === true,
    options,
    fieldOf,
    unmapped: [
      ...Object.keys(body).filter((field) => !READ.has(field) && body[field] != null),
      ...Object.keys(body.output_config ?? {})
        .filter((field) => field !== "effort" && field !== "format")
        .map((field) => `output_config.${field}`),
    ],
  };
}

function optionsOf(body: Json): Pick<NeutralRequest, "options" | "fieldOf"> {
  const { options, fieldOf, set } = optionRecorder();
  set("maxOutputTokens", body.max_tokens, "max_tokens");
  set("temperature", body.temperature, "temperature");
  set("topP", body.top_p, "top_p");
  set("topK", body.top_k, "top_k");
  set("stop", body.stop_sequences, "stop_sequences");
  set("user", body.metadata?.user_id, "metadata.user_id");
  if (body.tool_choice?.disable_parallel_tool_use) {
    set("parallelToolCalls", false, "tool_choice.disable_parallel_tool_use");
  }
  const reasoning = reasoningOf(body);
  set("reasoning", reasoning, body.thinking ? "thinking" : "output_config.effort");
  const format = body.output_config?.format ?? body.output_format;
  if (format?.type === "json_schema" && format.schema) {
    set(
      "responseFormat",
      { type: "json_schema", name: "response", schema: format.schema },
      body.output_config?.format ? "output_config.format" : "output_format",
    );
  }
  return { options, fieldOf };
}

const EFFORTS = new Set(["low", "medium", "high", "xhigh", "max"]);

/** Extended thinking (a budget, or adaptive) and `output_config.effort`, or undefined. */
function reasoningOf(body: Json): NeutralReasoning | undefined {
  const thinking = body.thinking;
  const effort = EFFORTS.has(body.output_config?.effort) ? body.output_config.effort : undefined;
  const reasoning: NeutralReasoning = {};
  if (thinking?.type === "enabled" && typeof thinking.budget_tokens === "number") {
    reasoning.budgetTokens = thinking.budget_tokens;
  } else if (thinking?.type === "adaptive") reasoning.adaptive = true;
  else if (!effort) return undefined;
  if (effort) reasoning.effort = effort;
  if (thinking?.display === "omitted") reasoning.summary = "none";
  return reasoning;
}

/** The tools the client runs: server tools stay with an anthropic upstream. */
function toolsOf(body: Json): NeutralTool[] {
  return (body.tools ?? []).filter((tool: Json) => !isServerTool(tool)).map((tool: Json) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.input_schema ?? { type: "object", properties: {} },
    ...(typeof tool.strict === "boolean" ? { strict: tool.strict } : {}),
  }));
}
