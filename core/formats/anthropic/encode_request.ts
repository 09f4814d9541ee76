/** Neutral requests as messages-API bodies (pure). */

import {
  argumentsObject,
  type DroppableName,
  type NeutralOptions,
  type NeutralPart,
  type NeutralRequest,
  type OptionName,
  unsupportedOptions,
} from "../neutral.ts";
import { signatureFor } from "../signature.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const SUPPORTED: ReadonlySet<OptionName> = new Set<OptionName>([
  "maxOutputTokens",
  "temperature",
  "topP",
  "topK",
  "stop",
  "user",
  "parallelToolCalls",
  "reasoning",
  "responseFormat",
  "replayableReasoning",
]);

const BUDGET_BY_EFFORT = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
  max: 65536,
};

function blockOf(part: NeutralPart): Json | null {
  switch (part.type) {
    case "text":
      return part.text ? { type: "text", text: part.text } : null;
    case "image":
      return {
        type: "image",
        source: { type: "base64", media_type: part.mimeType, data: part.data },
      };
    case "image_url":
      return { type: "image", source: { type: "url", url: part.url } };
    case "tool_call":
      return {
        type: "tool_use",
        id: part.id,
        name: part.name,
        input: argumentsObject(part.arguments),
      };
    case "tool_result":
      return {
        type: "tool_result",
        tool_use_id: part.callId,
        content: part.content,
        ...(part.isError ? { is_error: true } : {}),
      };
    case "reasoning": {
      // Only Anthropic's own signed thinking can be sent back, exactly as it came.
      const signed = signatureFor(part.signature, "anthropic");
      if (!signed) return null;
      return signed.kind === "redacted"
        ? { type: "redacted_thinking", data: signed.value }
        : { type: "thinking", thinking: part.text, signature: signed.value };
    }
  }
}

/** The messages body for `request` on an upstream that calls the model `model`. */
export function encodeAnthropicRequest(
  request: NeutralRequest,
  { model, defaultMaxTokens }: { model: string; defaultMaxTokens: number },
): { body: Json; ignored: DroppableName[] } {
  const o = request.options;
  const ignored: DroppableName[] = unsupportedOptions(o, SUPPORTED);
  const messages = messagesOf(request, ignored);
  const body: Json = {
    model,
    max_tokens: o.maxOutputTokens ?? defaultMaxTokens,
    messages,
  };
  if (request.system.length) body.system = request.system.join("\n\n");
  if (request.stream) body.stream = true;
  if (request.tools.length) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters,
      ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
    }));
  }
  const choice = request.toolChoice;
  if (choice || o.parallelToolCalls === false) {
    body.tool_choice = toolChoiceFor(choice, o.parallelToolCalls);
  }
  setThinking(body, o, ignored);
  setOutputConfig(body, o, ignored);
  if (o.stop) body.stop_sequences = o.stop;
  if (o.user !== undefined) body.metadata = { user_id: o.user };
  return { body, ignored };
}

function messagesOf(request: NeutralRequest, ignored: DroppableName[]): Json[] {
  const messages: Json[] = [];
  for (const message of request.messages) {
    // The API wants tool results first in a user turn.
    const ordered = message.role === "user"
      ? [
        ...message.parts.filter((part) => part.type === "tool_result"),
        ...message.parts.filter((part) => part.type !== "tool_result"),
      ]
      : message.parts;
    const content = ordered.map(blockOf).filter((block) => block !== null);
    if (
      ordered.some((part) =>
        part.type === "reasoning" && !signatureFor(part.signature, "anthropic")
      )
    ) {
      if (!ignored.includes("reasoningHistory")) ignored.push("reasoningHistory");
    }
    if (content.length) messages.push({ role: message.role, content });
  }
  return messages;
}

function toolChoiceFor(
  choice: NeutralRequest["toolChoice"],
  parallelToolCalls: boolean | undefined,
): Json {
  const type = choice === "required"
    ? { type: "any" }
    : choice === "none"
    ? { type: "none" }
    : typeof choice === "object"
    ? { type: "tool", name: choice.name }
    : { type: "auto" };
  return parallelToolCalls === false && type.type !== "none"
    ? { ...type, disable_parallel_tool_use: true }
    : type;
}

/**
 * Extended thinking within `max_tokens`, and the sampling options it allows. Every level, and the
 * model's own choice (Gemini's budget -1), becomes a budget: every Claude model that thinks takes
 * one, while adaptive thinking and `output_config.effort` only the newest do. Effort "none" is
 * Anthropic's default, no thinking.
 */
function setThinking(body: Json, o: NeutralOptions, ignored: DroppableName[]): void {
  let thinking = false;
  const reasoning = o.reasoning;
  if (reasoning && !thinkingFits(body.messages)) ignored.push("reasoning");
  else if (reasoning && reasoning.effort !== "none") {
    const budget = reasoning.budgetTokens ?? BUDGET_BY_EFFORT[reasoning.effort ?? "medium"];
    const fitted = Math.min(budget, body.max_tokens - 1);
    if (fitted >= 1024) {
      body.thinking = { type: "enabled", budget_tokens: fitted };
      thinking = true;
    } else ignored.push("reasoning");
  }
  if (thinking && reasoning?.summary === "none") body.thinking.display = "omitted";
  // Extended thinking refuses sampling changes; they are dropped then.
  if (o.temperature !== undefined) {
    thinking ? ignored.push("temperature") : body.temperature = o.temperature;
  }
  if (o.topP !== undefined) thinking ? ignored.push("topP") : body.top_p = o.topP;
  if (o.topK !== undefined) thinking ? ignored.push("topK") : body.top_k = o.topK;
}

/**
 * Whether thinking can be turned on for these turns. With thinking on, Anthropic wants the last
 * assistant turn, when it made tool calls, to start with its (signed) thinking; a history from
 * another provider has none to give, and the request would be refused.
 */
export function thinkingFits(messages: Json[]): boolean {
  const last = messages.findLast((message) => message.role === "assistant");
  if (!last?.content.some((block: Json) => block.type === "tool_use")) return true;
  const first = last.content[0]?.type;
  return first === "thinking" || first === "redacted_thinking";
}

/** Structured output: `output_config.format` (Anthropic has no bare JSON mode: `json_object` is named). */
function setOutputConfig(body: Json, o: NeutralOptions, ignored: DroppableName[]): void {
  if (o.responseFormat?.type === "json_schema") {
    body.output_config = { format: { type: "json_schema", schema: o.responseFormat.schema } };
  } else if (o.responseFormat) ignored.push("responseFormat");
}
