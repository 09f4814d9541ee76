/** Messages-API requests to and from the neutral representation (pure). */

import {
  appendTurn,
  argumentsObject,
  type NeutralMessage,
  type NeutralPart,
  type NeutralRequest,
  type NeutralToolChoice,
  type OptionName,
  optionRecorder,
  resultText,
  unsupportedOptions,
} from "../neutral.ts";

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
      return { type: "reasoning", text: block.thinking ?? "", signature: block.signature };
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
    const role = message.role === "assistant" ? "assistant" : "user";
    const parts = blocksOf(message.content).map(partOf).filter((part): part is NeutralPart =>
      part !== null
    );
    appendTurn(messages, role, parts);
  }
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
  if (body.thinking?.type === "enabled") {
    set("reasoning", { budgetTokens: body.thinking.budget_tokens }, "thinking");
  }
  return {
    model: body.model,
    system,
    messages,
    tools: (body.tools ?? []).filter((tool: Json) => !isServerTool(tool)).map((tool: Json) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.input_schema ?? { type: "object", properties: {} },
    })),
    toolChoice: toolChoiceOf(body.tool_choice),
    stream: body.stream === true,
    options,
    fieldOf,
    unmapped: Object.keys(body).filter((field) => !READ.has(field) && body[field] != null),
  };
}

const SUPPORTED: ReadonlySet<OptionName> = new Set<OptionName>([
  "maxOutputTokens",
  "temperature",
  "topP",
  "topK",
  "stop",
  "user",
  "parallelToolCalls",
  "reasoning",
]);

const BUDGET_BY_EFFORT = { minimal: 1024, low: 2048, medium: 8192, high: 16384 };

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
    case "reasoning":
      // Only the upstream's own signed thinking can be sent back.
      return part.signature
        ? { type: "thinking", thinking: part.text, signature: part.signature }
        : null;
  }
}

/** The messages body for `request` on an upstream that calls the model `model`. */
export function encodeAnthropicRequest(
  request: NeutralRequest,
  model: string,
  defaultMaxTokens: number,
): { body: Json; ignored: OptionName[] } {
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
    if (content.length) messages.push({ role: message.role, content });
  }
  const o = request.options;
  const ignored = unsupportedOptions(o, SUPPORTED);
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
    }));
  }
  const choice = request.toolChoice;
  if (choice || o.parallelToolCalls === false) {
    const type = choice === "required"
      ? { type: "any" }
      : choice === "none"
      ? { type: "none" }
      : typeof choice === "object"
      ? { type: "tool", name: choice.name }
      : { type: "auto" };
    body.tool_choice = o.parallelToolCalls === false && type.type !== "none"
      ? { ...type, disable_parallel_tool_use: true }
      : type;
  }
  let thinking = false;
  if (o.reasoning) {
    const budget = o.reasoning.budgetTokens ?? BUDGET_BY_EFFORT[o.reasoning.effort ?? "medium"];
    const fitted = Math.min(budget, body.max_tokens - 1);
    if (fitted >= 1024) {
      body.thinking = { type: "enabled", budget_tokens: fitted };
      thinking = true;
    } else ignored.push("reasoning");
  }
  // Extended thinking refuses sampling changes; they are dropped then.
  if (o.temperature !== undefined) {
    thinking ? ignored.push("temperature") : body.temperature = o.temperature;
  }
  if (o.topP !== undefined) thinking ? ignored.push("topP") : body.top_p = o.topP;
  if (o.topK !== undefined) thinking ? ignored.push("topK") : body.top_k = o.topK;
  if (o.stop) body.stop_sequences = o.stop;
  if (o.user !== undefined) body.metadata = { user_id: o.user };
  return { body, ignored };
}
