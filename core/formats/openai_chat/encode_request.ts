/** Neutral requests as chat-completions bodies (pure). */

import {
  type DroppableName,
  effortOf,
  type NeutralMessage,
  type NeutralOptions,
  type NeutralPart,
  type NeutralRequest,
  type OptionName,
  unsupportedOptions,
} from "../neutral.ts";
import { OPENAI_EFFORT } from "../openai_effort.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

function contentParts(parts: NeutralPart[]): Json {
  const visible = parts.filter((part) =>
    part.type === "text" || part.type === "image" || part.type === "image_url"
  );
  if (visible.every((part) => part.type === "text")) {
    return visible.map((part) => (part as { text: string }).text).join("");
  }
  return visible.map((part) =>
    part.type === "text" ? { type: "text", text: part.text } : {
      type: "image_url",
      image_url: {
        url: part.type === "image" ? `data:${part.mimeType};base64,${part.data}` : part.url,
      },
    }
  );
}

/** Options this format carries. */
const SUPPORTED: ReadonlySet<OptionName> = new Set<OptionName>([
  "maxOutputTokens",
  "temperature",
  "topP",
  "stop",
  "seed",
  "presencePenalty",
  "frequencyPenalty",
  "user",
  "parallelToolCalls",
  "reasoning",
  "responseFormat",
  "promptCacheKey",
  "promptCacheRetention",
  "verbosity",
  "serviceTier",
]);

/** The chat-completions body for `request` on an upstream that calls the model `model`. */
export function encodeChatRequest(
  request: NeutralRequest,
  model: string,
): { body: Json; ignored: DroppableName[] } {
  const o = request.options;
  const body: Json = { model, messages: messagesOf(request) };
  if (request.stream) body.stream = true, body.stream_options = { include_usage: true };
  if (request.tools.length) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
      },
    }));
  }
  const choice = request.toolChoice;
  if (choice) {
    body.tool_choice = typeof choice === "string"
      ? choice
      : { type: "function", function: { name: choice.name } };
  }
  setOptions(body, o, request.tools.length > 0);
  const ignored: DroppableName[] = unsupportedOptions(o, SUPPORTED);
  // Chat completions has no place for reasoning of the history.
  if (request.messages.some((message) => message.parts.some((part) => part.type === "reasoning"))) {
    ignored.push("reasoningHistory");
  }
  return { body, ignored };
}

/** System text first, then each turn: tool results as tool messages, calls on the assistant's. */
function messagesOf(request: NeutralRequest): Json[] {
  const messages: Json[] = request.system.map((text) => ({ role: "system", content: text }));
  for (const message of request.messages) {
    if (message.role === "user") messages.push(...userMessages(message));
    else messages.push(assistantMessage(message));
  }
  return messages;
}

function userMessages(message: NeutralMessage): Json[] {
  const messages: Json[] = [];
  for (const part of message.parts) {
    if (part.type === "tool_result") {
      messages.push({ role: "tool", tool_call_id: part.callId, content: part.content });
    }
  }
  const rest = message.parts.filter((part) => part.type !== "tool_result");
  if (rest.length) messages.push({ role: "user", content: contentParts(rest) });
  return messages;
}

function assistantMessage(message: NeutralMessage): Json {
  const calls = message.parts.filter((part) => part.type === "tool_call");
  const text = message.parts.filter((part) => part.type === "text")
    .map((part) => (part as { text: string }).text).join("");
  return {
    role: "assistant",
    content: text || (calls.length ? null : ""),
    ...(calls.length
      ? {
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments || "{}" },
        })),
      }
      : {}),
  };
}

/** The generation options, each under its chat-completions name. */
function setOptions(body: Json, o: NeutralOptions, hasTools: boolean): void {
  if (o.maxOutputTokens !== undefined) body.max_completion_tokens = o.maxOutputTokens;
  if (o.temperature !== undefined) body.temperature = o.temperature;
  if (o.topP !== undefined) body.top_p = o.topP;
  if (o.stop) body.stop = o.stop;
  if (o.seed !== undefined) body.seed = o.seed;
  if (o.presencePenalty !== undefined) body.presence_penalty = o.presencePenalty;
  if (o.frequencyPenalty !== undefined) body.frequency_penalty = o.frequencyPenalty;
  if (o.user !== undefined) body.user = o.user;
  if (o.parallelToolCalls !== undefined && hasTools) {
    body.parallel_tool_calls = o.parallelToolCalls;
  }
  const effort = o.reasoning && effortOf(o.reasoning);
  if (effort) body.reasoning_effort = OPENAI_EFFORT[effort];
  const format = o.responseFormat;
  if (format) {
    body.response_format = format.type === "json_object" ? { type: "json_object" } : {
      type: "json_schema",
      json_schema: {
        name: format.name,
        schema: format.schema,
        ...(format.strict !== undefined ? { strict: format.strict } : {}),
      },
    };
  }
  if (o.verbosity !== undefined) body.verbosity = o.verbosity;
  if (o.serviceTier !== undefined) body.service_tier = o.serviceTier;
  if (o.promptCacheKey !== undefined) body.prompt_cache_key = o.promptCacheKey;
  if (o.promptCacheRetention !== undefined) body.prompt_cache_retention = o.promptCacheRetention;
}
