/**
 * The one internal representation of a text request, answer and stream that every wire format
 * converts to and from (design.md: N formats need 2N pieces, not N²). Close to the richest of
 * the formats, so nothing that two formats share is lost on the way through.
 */

import type { TokenUsage } from "../billing/usage.ts";
import type { ToolNameMap } from "./tool_names.ts";

/**
 * The wire formats of text upstreams. All but `bedrock-converse` are also inbound interfaces;
 * Bedrock's Converse is spoken to upstreams only.
 */
export type TextFormat =
  | "openai-chat"
  | "openai-responses"
  | "anthropic"
  | "gemini"
  | "bedrock-converse";

/** The formats clients speak to the gateway (each an inbound interface). */
export type InboundFormat = Exclude<TextFormat, "bedrock-converse">;

export type StopReason = "stop" | "length" | "tool_calls" | "content_filter";

export type NeutralPart =
  | { type: "text"; text: string }
  /** Base64 bytes. */
  | { type: "image"; mimeType: string; data: string }
  /** An image by address (http(s) or data: URL). */
  | { type: "image_url"; url: string }
  /**
   * Thinking / reasoning. `signature` is the provider's proof, kept for the next turn, always in
   * the form of signature.ts (it names the provider that signed it). A part with a signature and
   * no text stands for proof a provider attached to the part that follows it (Gemini's thought
   * signature on a function call) or for hidden reasoning (Anthropic's redacted thinking).
   */
  | { type: "reasoning"; text: string; signature?: string }
  | { type: "tool_call"; id: string; name: string; arguments: string } & DeclaredCallFields
  | { type: "tool_result"; callId: string; content: string; isError?: boolean };

/** What a responses client declared about a called tool, restored for its answer. */
export interface DeclaredCallFields {
  /** The responses `namespace` tool the called function belongs to. */
  namespace?: string;
  /** A responses `custom` tool: the arguments are `{"input": text}`. */
  freeform?: boolean;
}

export interface NeutralMessage {
  role: "user" | "assistant";
  parts: NeutralPart[];
}

export interface NeutralTool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  /** The client's `strict` (arguments held to the schema exactly), when it declared one. */
  strict?: boolean;
}

export type NeutralToolChoice = "auto" | "none" | "required" | { name: string };

/** Generation options; each remembers the inbound field it came from (for ignored-fields). */
export interface NeutralOptions {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  user?: string;
  parallelToolCalls?: boolean;
  /** Reasoning: an effort level, a token budget, the model's own choice, or a mix. */
  reasoning?: NeutralReasoning;
  /** Structured output. */
  responseFormat?: { type: "json_object" } | {
    type: "json_schema";
    name: string;
    schema: Record<string, unknown>;
    strict?: boolean;
  };
  /** OpenAI's prompt-cache routing key. */
  promptCacheKey?: string;
  /** OpenAI's prompt-cache retention (`in_memory`, `24h`). */
  promptCacheRetention?: string;
  /** OpenAI's answer length hint (chat `verbosity`, responses `text.verbosity`). */
  verbosity?: string;
  /** OpenAI's processing tier (`service_tier`). */
  serviceTier?: string;
  /** The client wants reasoning it can replay (responses `include: [reasoning.encrypted_content]`). */
  replayableReasoning?: boolean;
}

export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

export interface NeutralReasoning {
  effort?: ReasoningEffort;
  budgetTokens?: number;
  /** The model decides how much to think (Anthropic adaptive, Gemini budget -1). */
  adaptive?: boolean;
  /** Whether readable reasoning comes back: a responses summary level, or "none". */
  summary?: "auto" | "concise" | "detailed" | "none";
}

export type OptionName = keyof NeutralOptions;

/**
 * What an encoder can drop: an option, reasoning of the history it cannot replay (unsigned,
 * or signed by another provider), the tools' `strict: true`, or images given by an address to
 * an upstream that takes only their bytes (Bedrock's Converse).
 */
export type DroppableName = OptionName | "reasoningHistory" | "toolStrict" | "imageUrl";

export interface NeutralRequest {
  model: string;
  /** System / developer instructions, in order. */
  system: string[];
  messages: NeutralMessage[];
  tools: NeutralTool[];
  toolChoice?: NeutralToolChoice;
  stream: boolean;
  options: NeutralOptions;
  /** The inbound field name of each option set, e.g. `{maxOutputTokens: "max_tokens"}`. */
  fieldOf: Partial<Record<DroppableName, string>>;
  /** Inbound fields the representation does not carry: dropped when the format changes. */
  unmapped: string[];
  /** How the tools' upstream names map back to the client's (responses namespaces). */
  toolNames?: ToolNameMap;
}

export interface NeutralUsage extends TokenUsage {
  /** The part of `output_tokens` spent on reasoning, when reported. */
  reasoning_tokens?: number;
}

export interface NeutralResponse {
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
  parts: NeutralPart[];
  stop: StopReason;
  usage?: NeutralUsage;
}

/** One step of a streamed answer. */
export type NeutralEvent =
  | { type: "start"; id: string; model: string }
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  /**
   * The signature of the reasoning just streamed, or with `standalone` one of its own (redacted
   * thinking, a Gemini call's signature) that must not be joined to that reasoning.
   */
  | { type: "reasoning_signature"; signature: string; standalone?: boolean }
  /** `index` counts tool calls from 0; the first event of a call carries `id` and `name`. */
  | {
    type: "tool_call";
    index: number;
    id?: string;
    name?: string;
    arguments: string;
  } & DeclaredCallFields
  | { type: "image"; mimeType: string; data: string }
  | { type: "stop"; reason: StopReason }
  | { type: "usage"; usage: NeutralUsage }
  | { type: "error"; message: string; code?: string };

/** Reads one upstream stream event (SSE `event` name and `data`) into neutral events. */
export interface StreamDecoder {
  decode(event: string | undefined, data: string): NeutralEvent[];
  /** Whether the upstream's normal end (its last event, or its finish reason) was seen. */
  readonly completed: boolean;
  /** Usage seen so far (the last report wins). */
  readonly usage: NeutralUsage | undefined;
  /** An in-stream error the upstream sent, if any. */
  readonly error: string | undefined;
  /**
   * Output characters (text, reasoning, tool arguments) of the answers after the first, which
   * no event carries: Gemini candidates beyond the first, relayed as they came.
   */
  readonly otherAnswersChars?: number;
  /** Responses: the sequence number an event added after the last one seen takes. */
  readonly nextSequence?: number;
}

/** Writes neutral events as a client format's stream frames. */
export interface StreamEncoder {
  encode(event: NeutralEvent): string;
  /** The frames that close a completed stream. */
  end(): string;
  /** The format's in-stream error, closing the stream. */
  error(message: string, code: string): string;
}

/** What a format's tool call becomes when the reason says "stop" but calls were made. */
export function stopWithCalls(reason: StopReason, madeCalls: boolean): StopReason {
  return reason === "stop" && madeCalls ? "tool_calls" : reason;
}

/** Parses tool-call arguments; an unparsable string becomes `{}` (never throws). */
export function argumentsObject(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : { value };
  } catch {
    return {};
  }
}

/** A data: URL's parts, or null for other URLs. */
export function parseDataUrl(url: string): { mimeType: string; data: string } | null {
  const match = /^data:([^;,]+)?(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  return match ? { mimeType: match[1] ?? "application/octet-stream", data: match[2] } : null;
}

/** The text of a tool result, whatever shape it came in. */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) =>
      typeof part === "string" ? part : typeof part?.text === "string" ? part.text : ""
    ).join("");
  }
  return content === undefined || content === null ? "" : JSON.stringify(content);
}

/** Builds a request's options, remembering each one's inbound field (for ignored-fields). */
export function optionRecorder(prefix = "") {
  const options: NeutralOptions = {};
  const fieldOf: NeutralRequest["fieldOf"] = {};
  const set = <K extends OptionName>(name: K, value: NeutralOptions[K] | null, field: string) => {
    if (value === undefined || value === null) return;
    options[name] = value;
    fieldOf[name] = prefix + field;
  };
  return { options, fieldOf, set };
}

/** Adds a turn, merged into the last one when the role is the same (formats differ on this). */
export function appendTurn(
  messages: NeutralMessage[],
  { role, parts }: { role: NeutralMessage["role"]; parts: NeutralPart[] },
): void {
  const last = messages.at(-1);
  if (last?.role === role) last.parts.push(...parts);
  else messages.push({ role, parts });
}

/** The options a format does not carry. */
export function unsupportedOptions(
  options: NeutralOptions,
  supported: ReadonlySet<OptionName>,
): OptionName[] {
  return (Object.keys(options) as OptionName[]).filter((name) => !supported.has(name));
}

/** An effort level for a thinking budget, for formats that take levels. */
export function effortOfBudget(budget = 4096): "low" | "medium" | "high" {
  return budget <= 2048 ? "low" : budget <= 8192 ? "medium" : "high";
}

/** The effort of `reasoning` for formats that take levels, or undefined when it names none. */
export function effortOf(reasoning: NeutralReasoning): ReasoningEffort | undefined {
  if (reasoning.effort) return reasoning.effort;
  return reasoning.budgetTokens !== undefined ? effortOfBudget(reasoning.budgetTokens) : undefined;
}
