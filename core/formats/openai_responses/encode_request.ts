/** Neutral requests as responses-API bodies (pure). */

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
import { signatureFor } from "../signature.ts";
import { OPENAI_EFFORT } from "../openai_effort.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const SUPPORTED: ReadonlySet<OptionName> = new Set<OptionName>([
  "maxOutputTokens",
  "temperature",
  "topP",
  "user",
  "parallelToolCalls",
  "reasoning",
  "responseFormat",
  "promptCacheKey",
  "promptCacheRetention",
  "replayableReasoning",
  "verbosity",
  "serviceTier",
]);

function contentOf(parts: NeutralPart[]): Json[] {
  const content: Json[] = [];
  for (const part of parts) {
    if (part.type === "text") content.push({ type: "input_text", text: part.text });
    else if (part.type === "image") {
      content.push({ type: "input_image", image_url: `data:${part.mimeType};base64,${part.data}` });
    } else if (part.type === "image_url") {
      content.push({ type: "input_image", image_url: part.url });
    }
  }
  return content;
}

/** The responses body for `request` on an upstream that calls the model `model`. */
export function encodeResponsesRequest(
  request: NeutralRequest,
  model: string,
): { body: Json; ignored: DroppableName[] } {
  const o = request.options;
  const ignored: DroppableName[] = unsupportedOptions(o, SUPPORTED);
  const input = inputOf(request, ignored);
  const body: Json = { model, input, store: false };
  if (request.system.length) body.instructions = request.system.join("\n\n");
  if (request.stream) body.stream = true;
  if (request.tools.length) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
    }));
  }
  const choice = request.toolChoice;
  if (choice) {
    body.tool_choice = typeof choice === "string"
      ? choice
      : { type: "function", name: choice.name };
  }
  setOptions(body, o, request.tools.length > 0);
  // Nothing is stored upstream, so reasoning continues only through its encrypted content.
  if (o.reasoning || o.replayableReasoning || input.some((item) => item.type === "reasoning")) {
    body.include = ["reasoning.encrypted_content"];
  }
  return { body, ignored };
}

/** The input items of the turns: tool results and calls are items of their own. */
function inputOf(request: NeutralRequest, ignored: DroppableName[]): Json[] {
  const input: Json[] = [];
  for (const message of request.messages) {
    if (message.role === "user") input.push(...userInput(message));
    else input.push(...assistantInput(message, ignored));
  }
  return input;
}

function userInput(message: NeutralMessage): Json[] {
  const input: Json[] = [];
  for (const part of message.parts) {
    if (part.type === "tool_result") {
      input.push({ type: "function_call_output", call_id: part.callId, output: part.content });
    }
  }
  const content = contentOf(message.parts);
  if (content.length) input.push({ role: "user", content });
  return input;
}

function assistantInput(message: NeutralMessage, ignored: DroppableName[]): Json[] {
  const input: Json[] = [];
  for (const part of message.parts) {
    if (part.type === "reasoning") {
      const item = reasoningItem(part);
      if (item) input.push(item);
      else if (!ignored.includes("reasoningHistory")) ignored.push("reasoningHistory");
      continue;
    }
    if (part.type === "text") {
      input.push({ role: "assistant", content: [{ type: "output_text", text: part.text }] });
    } else if (part.type === "tool_call") {
      input.push({
        type: "function_call",
        call_id: part.id,
        name: part.name,
        arguments: part.arguments || "{}",
      });
    }
  }
  return input;
}

/** OpenAI's own encrypted reasoning, replayed (without an id: nothing is stored upstream). */
function reasoningItem(part: Extract<NeutralPart, { type: "reasoning" }>): Json | undefined {
  const signed = signatureFor(part.signature, "openai-responses");
  if (!signed) return undefined;
  return {
    type: "reasoning",
    summary: part.text ? [{ type: "summary_text", text: part.text }] : [],
    encrypted_content: signed.value,
  };
}

/** The generation options, each under its responses name. */
function setOptions(body: Json, o: NeutralOptions, hasTools: boolean): void {
  if (o.maxOutputTokens !== undefined) body.max_output_tokens = o.maxOutputTokens;
  if (o.temperature !== undefined) body.temperature = o.temperature;
  if (o.topP !== undefined) body.top_p = o.topP;
  if (o.user !== undefined) body.user = o.user;
  if (o.parallelToolCalls !== undefined && hasTools) {
    body.parallel_tool_calls = o.parallelToolCalls;
  }
  if (o.reasoning) {
    const effort = effortOf(o.reasoning);
    body.reasoning = {
      ...(effort ? { effort: OPENAI_EFFORT[effort] } : {}),
      ...(o.reasoning.summary !== "none" ? { summary: o.reasoning.summary ?? "auto" } : {}),
    };
  }
  if (o.responseFormat) {
    const format = o.responseFormat;
    body.text = {
      format: format.type === "json_object" ? { type: "json_object" } : {
        type: "json_schema",
        name: format.name,
        schema: format.schema,
        ...(format.strict !== undefined ? { strict: format.strict } : {}),
      },
    };
  }
  if (o.verbosity !== undefined) body.text = { ...body.text, verbosity: o.verbosity };
  if (o.serviceTier !== undefined) body.service_tier = o.serviceTier;
  if (o.promptCacheKey !== undefined) body.prompt_cache_key = o.promptCacheKey;
  if (o.promptCacheRetention !== undefined) body.prompt_cache_retention = o.promptCacheRetention;
}
