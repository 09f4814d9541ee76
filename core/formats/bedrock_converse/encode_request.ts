/**
 * Neutral requests as Converse bodies (pure): `messages` of content blocks (`text`, `image`
 * with base64 `bytes`, `toolUse`, `toolResult`, `reasoningContent`), `system`, `inferenceConfig`
 * and `toolConfig`. The model is in the URL, not the body. Extended thinking is Claude's own
 * field, sent in `additionalModelRequestFields` to Anthropic models only.
 */

import {
  argumentsObject,
  type DroppableName,
  type NeutralOptions,
  type NeutralPart,
  type NeutralRequest,
  type OptionName,
  parseDataUrl,
  unsupportedOptions,
} from "../neutral.ts";
import { signatureFor } from "../signature.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const SUPPORTED: ReadonlySet<OptionName> = new Set<OptionName>([
  "maxOutputTokens",
  "temperature",
  "topP",
  "stop",
  "reasoning",
  "replayableReasoning",
]);

/** The image formats Converse takes, by MIME type. */
const IMAGE_FORMATS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

const BUDGET_BY_EFFORT = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
  max: 65536,
};

/** Whether `model` (a model id, inference profile or ARN) is one of Anthropic's. */
export function isAnthropicModel(model: string): boolean {
  return /(^|[.:/])anthropic\./.test(model);
}

function imageBlock(mimeType: string, data: string): Json | null {
  const format = IMAGE_FORMATS[mimeType.toLowerCase()];
  return format ? { image: { format, source: { bytes: data } } } : null;
}

function blockOf(part: NeutralPart, ignored: DroppableName[]): Json | null {
  switch (part.type) {
    case "text":
      return part.text ? { text: part.text } : null;
    case "image":
      return imageBlock(part.mimeType, part.data);
    case "image_url": {
      // Converse takes image bytes only: an address is sent when it is a data: URL.
      const inline = parseDataUrl(part.url);
      if (inline) return imageBlock(inline.mimeType, inline.data);
      if (!ignored.includes("imageUrl")) ignored.push("imageUrl");
      return null;
    }
    case "tool_call":
      return {
        toolUse: { toolUseId: part.id, name: part.name, input: argumentsObject(part.arguments) },
      };
    case "tool_result":
      return {
        toolResult: {
          toolUseId: part.callId,
          content: [{ text: part.content || " " }],
          ...(part.isError ? { status: "error" } : {}),
        },
      };
    case "reasoning": {
      // Only reasoning Bedrock signed can be sent back, exactly as it came.
      const signed = signatureFor(part.signature, "bedrock-converse");
      if (!signed) return null;
      return signed.kind === "redacted"
        ? { reasoningContent: { redactedContent: signed.value } }
        : { reasoningContent: { reasoningText: { text: part.text, signature: signed.value } } };
    }
  }
}

function messagesOf(request: NeutralRequest, ignored: DroppableName[]): Json[] {
  const messages: Json[] = [];
  for (const message of request.messages) {
    // Tool results first in a user turn, as Claude wants them.
    const ordered = message.role === "user"
      ? [
        ...message.parts.filter((part) => part.type === "tool_result"),
        ...message.parts.filter((part) => part.type !== "tool_result"),
      ]
      : message.parts;
    if (
      ordered.some((part) =>
        part.type === "reasoning" && !signatureFor(part.signature, "bedrock-converse")
      ) && !ignored.includes("reasoningHistory")
    ) ignored.push("reasoningHistory");
    const content = ordered.map((part) => blockOf(part, ignored)).filter((block) => block !== null);
    if (content.length) messages.push({ role: message.role, content });
  }
  return messages;
}

function toolConfigOf(request: NeutralRequest): Json | undefined {
  if (!request.tools.length) return undefined;
  const tools = request.tools.map((tool) => ({
    toolSpec: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      inputSchema: { json: tool.parameters },
    },
  }));
  const choice = request.toolChoice;
  // Converse has no "none": the tools are offered and the model left to choose.
  const toolChoice = choice === "required"
    ? { any: {} }
    : typeof choice === "object"
    ? { tool: { name: choice.name } }
    : choice === "auto"
    ? { auto: {} }
    : undefined;
  return { tools, ...(toolChoice ? { toolChoice } : {}) };
}

/**
 * Whether Claude's thinking can be on for these turns: its last assistant turn, when it called
 * tools, must start with its (signed) reasoning.
 */
function thinkingFits(messages: Json[]): boolean {
  const last = messages.findLast((message) => message.role === "assistant");
  if (!last?.content.some((block: Json) => block.toolUse)) return true;
  return last.content[0]?.reasoningContent !== undefined;
}

/** `inferenceConfig`, and Claude's thinking where asked and possible. */
function setInference(
  body: Json,
  o: NeutralOptions,
  input: { model: string; maxTokens: number; ignored: DroppableName[] },
): void {
  const { ignored } = input;
  const config: Json = { maxTokens: input.maxTokens };
  let thinking = false;
  const reasoning = o.reasoning;
  if (reasoning && reasoning.effort !== "none") {
    const budget = reasoning.budgetTokens ?? BUDGET_BY_EFFORT[reasoning.effort ?? "medium"];
    const fitted = Math.min(budget, input.maxTokens - 1);
    if (isAnthropicModel(input.model) && fitted >= 1024 && thinkingFits(body.messages)) {
      body.additionalModelRequestFields = {
        thinking: { type: "enabled", budget_tokens: fitted },
      };
      thinking = true;
    } else ignored.push("reasoning");
  }
  // Claude's thinking refuses sampling changes; they are dropped then.
  if (o.temperature !== undefined) {
    thinking ? ignored.push("temperature") : config.temperature = o.temperature;
  }
  if (o.topP !== undefined) thinking ? ignored.push("topP") : config.topP = o.topP;
  if (o.stop?.length) config.stopSequences = o.stop;
  body.inferenceConfig = config;
}

/** The Converse body for `request` on model `model` (named by the URL, not the body). */
export function encodeConverseRequest(
  request: NeutralRequest,
  { model, defaultMaxTokens }: { model: string; defaultMaxTokens: number },
): { body: Json; ignored: DroppableName[] } {
  const o = request.options;
  const ignored: DroppableName[] = unsupportedOptions(o, SUPPORTED);
  const body: Json = { messages: messagesOf(request, ignored) };
  if (request.system.length) body.system = request.system.map((text) => ({ text }));
  const toolConfig = toolConfigOf(request);
  if (toolConfig) body.toolConfig = toolConfig;
  setInference(body, o, {
    model,
    maxTokens: o.maxOutputTokens ?? defaultMaxTokens,
    ignored,
  });
  return { body, ignored };
}
