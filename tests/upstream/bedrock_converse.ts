/**
 * The Bedrock simulator's Converse side: a Converse body checked as Bedrock checks it and made
 * the Anthropic body the model behind it runs, and that model's answer (whole, or its SSE
 * events) made Converse's answer (whole, or ConverseStream events).
 */

// deno-lint-ignore no-explicit-any
type Json = any;

/** The fields a Converse body may have; any other is refused. */
const CONVERSE_FIELDS = new Set([
  "messages",
  "system",
  "inferenceConfig",
  "toolConfig",
  "guardrailConfig",
  "additionalModelRequestFields",
  "additionalModelResponseFieldPaths",
  "promptVariables",
  "requestMetadata",
  "performanceConfig",
]);

const IMAGE_FORMATS = new Set(["png", "jpeg", "gif", "webp"]);

/** Converse's content block as Anthropic's, or the refusal's message. */
function anthropicBlock(block: Json, at: string): Json | string {
  const members = Object.keys(block ?? {});
  if (members.length !== 1) {
    return `${at}: a content block must have exactly one member, found ${members.length}`;
  }
  if ("text" in block) {
    return typeof block.text === "string" && block.text
      ? { type: "text", text: block.text }
      : `${at}.text: must be a non-empty string`;
  }
  if ("image" in block) {
    if (!IMAGE_FORMATS.has(block.image?.format) || typeof block.image?.source?.bytes !== "string") {
      return `${at}.image: format must be one of png, jpeg, gif, webp, with source.bytes`;
    }
    return {
      type: "image",
      source: {
        type: "base64",
        media_type: `image/${block.image.format}`,
        data: block.image.source.bytes,
      },
    };
  }
  if ("toolUse" in block) {
    const { toolUseId, name, input } = block.toolUse ?? {};
    if (!toolUseId || !name || typeof input !== "object") return `${at}.toolUse: incomplete`;
    return { type: "tool_use", id: toolUseId, name, input };
  }
  if ("toolResult" in block) {
    const { toolUseId, content, status } = block.toolResult ?? {};
    if (!toolUseId || !Array.isArray(content)) return `${at}.toolResult: incomplete`;
    return {
      type: "tool_result",
      tool_use_id: toolUseId,
      content: content.map((part: Json) => part.text ?? JSON.stringify(part.json ?? "")).join(""),
      ...(status === "error" && { is_error: true }),
    };
  }
  if ("reasoningContent" in block) {
    const { reasoningText, redactedContent } = block.reasoningContent ?? {};
    if (redactedContent) return { type: "redacted_thinking", data: redactedContent };
    return {
      type: "thinking",
      thinking: reasoningText?.text ?? "",
      signature: reasoningText?.signature,
    };
  }
  return `${at}: unknown content block member ${members[0]}`;
}

/** The Anthropic body a Converse body asks of `modelId`, or Bedrock's refusal. */
export function anthropicBodyOfConverse(
  body: Json,
  { modelId, anthropic }: { modelId: string; anthropic: boolean },
): Json | string {
  for (const field of Object.keys(body)) {
    if (!CONVERSE_FIELDS.has(field)) {
      return `Malformed input request: extraneous key [${field}] is not permitted`;
    }
  }
  if (!Array.isArray(body.messages) || !body.messages.length) {
    return "A conversation must start with a user message. Try again with a conversation that starts with a user message.";
  }
  const messages: Json[] = [];
  for (const [index, message] of body.messages.entries()) {
    if (!Array.isArray(message.content) || !message.content.length) {
      return `messages.${index}.content: must not be empty`;
    }
    const content: Json[] = [];
    for (const [at, block] of message.content.entries()) {
      const converted = anthropicBlock(block, `messages.${index}.content.${at}`);
      if (typeof converted === "string") return converted;
      content.push(converted);
    }
    messages.push({ role: message.role, content });
  }
  const extra = body.additionalModelRequestFields ?? {};
  if (!anthropic && Object.keys(extra).length) {
    return `The model returned the following errors: Malformed input request: extraneous key [${
      Object.keys(extra)[0]
    }] is not permitted`;
  }
  const config = body.inferenceConfig ?? {};
  const out: Json = { model: modelId, max_tokens: config.maxTokens ?? 4096, messages };
  if (Array.isArray(body.system)) {
    out.system = body.system.map((part: Json) => part.text).join("\n");
  }
  if (config.temperature !== undefined) out.temperature = config.temperature;
  if (config.topP !== undefined) out.top_p = config.topP;
  if (config.stopSequences) out.stop_sequences = config.stopSequences;
  if (body.toolConfig) {
    out.tools = (body.toolConfig.tools ?? []).map((tool: Json) => ({
      name: tool.toolSpec?.name,
      description: tool.toolSpec?.description,
      input_schema: tool.toolSpec?.inputSchema?.json,
    }));
    const choice = body.toolConfig.toolChoice;
    if (choice?.any) out.tool_choice = { type: "any" };
    else if (choice?.tool) out.tool_choice = { type: "tool", name: choice.tool.name };
    else if (choice?.auto) out.tool_choice = { type: "auto" };
  }
  if (extra.thinking) out.thinking = extra.thinking;
  return out;
}

/** Converse's `usage` of an Anthropic usage. */
function converseUsage(usage: Json): Json {
  const input = usage.input_tokens ?? 0;
  const read = usage.cache_read_input_tokens ?? 0;
  const write = usage.cache_creation_input_tokens ?? 0;
  const output = usage.output_tokens ?? 0;
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + read + write + output,
    cacheReadInputTokens: read,
    cacheWriteInputTokens: write,
  };
}

/** A whole Anthropic message as Converse's answer. */
export function converseAnswerOf(message: Json, latencyMs: number): Json {
  const content = message.content.map((block: Json) => {
    switch (block.type) {
      case "text":
        return { text: block.text };
      case "thinking":
        return {
          reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } },
        };
      case "redacted_thinking":
        return { reasoningContent: { redactedContent: block.data } };
      case "tool_use":
        return { toolUse: { toolUseId: block.id, name: block.name, input: block.input } };
    }
  });
  return {
    output: { message: { role: "assistant", content } },
    stopReason: message.stop_reason,
    usage: converseUsage(message.usage),
    metrics: { latencyMs },
  };
}

/**
 * The ConverseStream events (`[name, payload]`) of one Anthropic stream event; `state` carries
 * what later events need (the stop reason, the usage).
 */
export function converseEventsOf(
  event: Json,
  state: { usage: Json; stopReason?: string; started: number },
): Array<[string, Json]> {
  const index = event.index;
  switch (event.type) {
    case "message_start":
      state.usage = { ...event.message.usage };
      return [["messageStart", { role: "assistant" }]];
    case "content_block_start":
      return event.content_block.type === "tool_use"
        ? [["contentBlockStart", {
          contentBlockIndex: index,
          start: { toolUse: { toolUseId: event.content_block.id, name: event.content_block.name } },
        }]]
        : [];
    case "content_block_delta": {
      const delta = event.delta;
      const of = (
        value: Json,
      ): Array<[string, Json]> => [["contentBlockDelta", {
        contentBlockIndex: index,
        delta: value,
      }]];
      if (delta.type === "text_delta") return of({ text: delta.text });
      if (delta.type === "thinking_delta") {
        return of({ reasoningContent: { text: delta.thinking } });
      }
      if (delta.type === "signature_delta") {
        return of({ reasoningContent: { signature: delta.signature } });
      }
      if (delta.type === "input_json_delta" && delta.partial_json) {
        return of({ toolUse: { input: delta.partial_json } });
      }
      return [];
    }
    case "content_block_stop":
      return [["contentBlockStop", { contentBlockIndex: index }]];
    case "message_delta":
      state.stopReason = event.delta?.stop_reason ?? state.stopReason;
      state.usage = { ...state.usage, ...event.usage };
      return [];
    case "message_stop":
      return [
        ["messageStop", { stopReason: state.stopReason }],
        ["metadata", {
          usage: converseUsage(state.usage),
          metrics: { latencyMs: Date.now() - state.started },
        }],
      ];
    default:
      return [];
  }
}
