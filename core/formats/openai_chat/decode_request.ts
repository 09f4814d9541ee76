/** Chat-completions requests in neutral terms (pure). */

import {
  appendTurn,
  type NeutralMessage,
  type NeutralPart,
  type NeutralRequest,
  type NeutralTool,
  type NeutralToolChoice,
  optionRecorder,
  parseDataUrl,
  resultText,
} from "../neutral.ts";
import { REASONING_HISTORY_FIELD } from "../signature.ts";

/** Top-level fields this codec reads; any other is `unmapped`. */
const READ = new Set([
  "model",
  "messages",
  "stream",
  "stream_options",
  "tools",
  "tool_choice",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "stop",
  "seed",
  "presence_penalty",
  "frequency_penalty",
  "user",
  "parallel_tool_calls",
  "reasoning_effort",
  "response_format",
  "functions",
  "function_call",
  "prompt_cache_key",
  "prompt_cache_retention",
  "verbosity",
  "service_tier",
  "safety_identifier",
]);

// deno-lint-ignore no-explicit-any
type Json = any;

function textOf(content: Json): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (part?.type === "text" ? part.text ?? "" : "")).join("");
  }
  return "";
}

function userParts(content: Json): NeutralPart[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) return [];
  const parts: NeutralPart[] = [];
  for (const part of content) {
    if (part?.type === "text") parts.push({ type: "text", text: part.text ?? "" });
    else if (part?.type === "image_url") {
      const url = typeof part.image_url === "string" ? part.image_url : part.image_url?.url ?? "";
      const data = parseDataUrl(url);
      parts.push(data ? { type: "image", ...data } : { type: "image_url", url });
    }
  }
  return parts;
}

function toolChoiceOf(choice: Json): NeutralToolChoice | undefined {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (choice?.type === "function" && choice.function?.name) return { name: choice.function.name };
  return undefined;
}

/** A chat-completions body (already checked by its schema) in neutral terms. */
export function decodeChatRequest(body: Json): NeutralRequest {
  const { system, messages } = turnsOf(body);
  const { options, fieldOf } = optionsOf(body);
  const tools = toolsOf(body);
  fieldOf.reasoningHistory = REASONING_HISTORY_FIELD["openai-chat"];
  fieldOf.toolStrict = "tools[].function.strict";
  return {
    model: body.model,
    system,
    messages,
    tools,
    toolChoice: toolChoiceOf(body.tool_choice ?? body.function_call),
    stream: body.stream === true,
    options,
    fieldOf,
    unmapped: Object.keys(body).filter((field) => !READ.has(field) && body[field] != null),
  };
}

/** System and developer messages become the system text; the others, turns. */
function turnsOf(body: Json): { system: string[]; messages: NeutralMessage[] } {
  const system: string[] = [];
  const messages: NeutralMessage[] = [];
  for (const message of body.messages ?? []) {
    switch (message.role) {
      case "system":
      case "developer":
        system.push(textOf(message.content));
        break;
      case "user":
        appendTurn(messages, { role: "user", parts: userParts(message.content) });
        break;
      case "assistant":
        appendTurn(messages, { role: "assistant", parts: assistantParts(message) });
        break;
      case "tool":
      case "function":
        appendTurn(messages, {
          role: "user",
          parts: [{
            type: "tool_result",
            callId: message.tool_call_id ?? message.name ?? "",
            content: resultText(message.content),
          }],
        });
        break;
    }
  }
  return { system, messages };
}

function assistantParts(message: Json): NeutralPart[] {
  const parts: NeutralPart[] = [];
  if (typeof message.reasoning_content === "string" && message.reasoning_content) {
    parts.push({ type: "reasoning", text: message.reasoning_content });
  }
  const text = textOf(message.content);
  if (text) parts.push({ type: "text", text });
  for (const call of message.tool_calls ?? []) {
    parts.push({
      type: "tool_call",
      id: call.id,
      name: call.function?.name ?? "",
      arguments: call.function?.arguments ?? "",
    });
  }
  if (message.function_call) {
    parts.push({
      type: "tool_call",
      id: message.function_call.name,
      name: message.function_call.name,
      arguments: message.function_call.arguments ?? "",
    });
  }
  return parts;
}

function optionsOf(body: Json): Pick<NeutralRequest, "options" | "fieldOf"> {
  const { options, fieldOf, set } = optionRecorder();
  set(
    "maxOutputTokens",
    body.max_completion_tokens ?? body.max_tokens,
    body.max_completion_tokens != null ? "max_completion_tokens" : "max_tokens",
  );
  set("temperature", body.temperature, "temperature");
  set("topP", body.top_p, "top_p");
  set(
    "stop",
    typeof body.stop === "string" ? [body.stop] : body.stop ?? undefined,
    "stop",
  );
  set("seed", body.seed, "seed");
  set("presencePenalty", body.presence_penalty, "presence_penalty");
  set("frequencyPenalty", body.frequency_penalty, "frequency_penalty");
  set("user", body.user ?? body.safety_identifier, body.user ? "user" : "safety_identifier");
  set("parallelToolCalls", body.parallel_tool_calls, "parallel_tool_calls");
  if (body.reasoning_effort) {
    set("reasoning", { effort: body.reasoning_effort }, "reasoning_effort");
  }
  const format = body.response_format;
  if (format?.type === "json_object") {
    set("responseFormat", { type: "json_object" }, "response_format");
  }
  if (format?.type === "json_schema" && format.json_schema?.schema) {
    const { name, schema, strict } = format.json_schema;
    set("responseFormat", {
      type: "json_schema",
      name: name ?? "response",
      schema,
      ...(typeof strict === "boolean" ? { strict } : {}),
    }, "response_format");
  }
  set("verbosity", body.verbosity, "verbosity");
  set("serviceTier", body.service_tier, "service_tier");
  set("promptCacheKey", body.prompt_cache_key, "prompt_cache_key");
  set("promptCacheRetention", body.prompt_cache_retention, "prompt_cache_retention");
  return { options, fieldOf };
}

/** Function tools, the legacy `functions` included. */
function toolsOf(body: Json): NeutralTool[] {
  const legacyTools = (body.functions ?? []).map((fn: Json) => ({
    type: "function",
    function: fn,
  }));
  return [...(body.tools ?? []), ...legacyTools]
    .filter((tool: Json) => tool?.type === "function" && tool.function?.name)
    .map((tool: Json) => ({
      name: tool.function.name,
      description: tool.function.description,
      parameters: tool.function.parameters ?? { type: "object", properties: {} },
      ...(typeof tool.function.strict === "boolean" ? { strict: tool.function.strict } : {}),
    }));
}
