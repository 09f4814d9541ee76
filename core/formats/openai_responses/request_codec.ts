/** Responses-API requests to and from the neutral representation (pure). */

import {
  appendTurn,
  effortOfBudget,
  type NeutralMessage,
  type NeutralPart,
  type NeutralRequest,
  type NeutralToolChoice,
  type OptionName,
  optionRecorder,
  parseDataUrl,
  resultText,
  unsupportedOptions,
} from "../neutral.ts";

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
 * (previous_response_id, conversation, stored prompts, background runs) and built-in tools exist
 * only there.
 */
export function responsesOnlyFeature(body: Json): string | null {
  for (const field of ["previous_response_id", "conversation", "prompt", "background"]) {
    if (body[field] !== undefined && body[field] !== null && body[field] !== false) return field;
  }
  const builtIn = (body.tools ?? []).find((tool: Json) => tool?.type !== "function");
  if (builtIn) return `tools[type=${builtIn.type}]`;
  return null;
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

function toolChoiceOf(choice: Json): NeutralToolChoice | undefined {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (choice?.type === "function" && choice.name) return { name: choice.name };
  return undefined;
}

/** A responses body in neutral terms. */
export function decodeResponsesRequest(body: Json): NeutralRequest {
  const system: string[] = [];
  if (typeof body.instructions === "string" && body.instructions) system.push(body.instructions);
  const messages: NeutralMessage[] = [];
  const push = (role: "user" | "assistant", parts: NeutralPart[]) =>
    parts.length ? appendTurn(messages, role, parts) : undefined;
  const items = typeof body.input === "string"
    ? [{ role: "user", content: body.input }]
    : body.input ?? [];
  for (const item of items) {
    const type = item?.type ?? "message";
    if (type === "message") {
      if (item.role === "system" || item.role === "developer") {
        system.push(
          inputParts(item.content).map((part) => (part as { text?: string }).text ?? "").join(""),
        );
      } else push(item.role === "assistant" ? "assistant" : "user", inputParts(item.content));
    } else if (type === "function_call") {
      push("assistant", [{
        type: "tool_call",
        id: item.call_id,
        name: item.name,
        arguments: item.arguments ?? "",
      }]);
    } else if (type === "function_call_output") {
      push("user", [{
        type: "tool_result",
        callId: item.call_id,
        content: resultText(item.output),
      }]);
    } else if (type === "reasoning") {
      const text = (item.summary ?? []).map((part: Json) => part?.text ?? "").join("\n");
      push("assistant", [{
        type: "reasoning",
        text,
        ...(item.encrypted_content ? { signature: item.encrypted_content } : {}),
      }]);
    }
  }
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
  return {
    model: body.model,
    system,
    messages,
    tools: (body.tools ?? []).filter((tool: Json) => tool?.type === "function").map((
      tool: Json,
    ) => ({
      name: tool.name,
      description: tool.description ?? undefined,
      parameters: tool.parameters ?? { type: "object", properties: {} },
    })),
    toolChoice: toolChoiceOf(body.tool_choice),
    stream: body.stream === true,
    options,
    fieldOf,
    unmapped: Object.keys(body).filter((field) =>
      !READ.has(field) && body[field] != null && field !== "store"
    ),
  };
}

const SUPPORTED: ReadonlySet<OptionName> = new Set<OptionName>([
  "maxOutputTokens",
  "temperature",
  "topP",
  "user",
  "parallelToolCalls",
  "reasoning",
  "responseFormat",
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
): { body: Json; ignored: OptionName[] } {
  const input: Json[] = [];
  for (const message of request.messages) {
    if (message.role === "user") {
      for (const part of message.parts) {
        if (part.type === "tool_result") {
          input.push({ type: "function_call_output", call_id: part.callId, output: part.content });
        }
      }
      const content = contentOf(message.parts);
      if (content.length) input.push({ role: "user", content });
      continue;
    }
    for (const part of message.parts) {
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
      // Reasoning from another provider cannot be replayed: the upstream accepts only its own.
    }
  }
  const o = request.options;
  const body: Json = { model, input, store: false };
  if (request.system.length) body.instructions = request.system.join("\n\n");
  if (request.stream) body.stream = true;
  if (request.tools.length) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
    }));
  }
  const choice = request.toolChoice;
  if (choice) {
    body.tool_choice = typeof choice === "string"
      ? choice
      : { type: "function", name: choice.name };
  }
  if (o.maxOutputTokens !== undefined) body.max_output_tokens = o.maxOutputTokens;
  if (o.temperature !== undefined) body.temperature = o.temperature;
  if (o.topP !== undefined) body.top_p = o.topP;
  if (o.user !== undefined) body.user = o.user;
  if (o.parallelToolCalls !== undefined && request.tools.length) {
    body.parallel_tool_calls = o.parallelToolCalls;
  }
  if (o.reasoning) {
    body.reasoning = {
      effort: o.reasoning.effort ?? effortOfBudget(o.reasoning.budgetTokens),
      summary: "auto",
    };
  }
  if (o.responseFormat) {
    body.text = {
      format: o.responseFormat.type === "json_object"
        ? { type: "json_object" }
        : { type: "json_schema", name: o.responseFormat.name, schema: o.responseFormat.schema },
    };
  }
  const ignored = unsupportedOptions(o, SUPPORTED);
  return { body, ignored };
}
