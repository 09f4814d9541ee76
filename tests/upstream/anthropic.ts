/**
 * A simulated Anthropic messages upstream (`POST /v1/messages`, `/v1/messages/count_tokens`).
 * It checks requests as the real API does (a role other than user/assistant, a missing
 * max_tokens, an empty text block, a tool_result that answers no tool_use of the turn before or
 * that is not first in its turn, thinking with a budget under 1,024 or at max_tokens, sampling
 * changes with thinking, a thinking block whose signature is not the one it gave that text, or,
 * with thinking on, a last assistant turn of tool calls that does not start with its thinking:
 * 400 invalid_request_error) and answers in its shape: content blocks, thinking with a signature,
 * tool_use, cache usage apart from input_tokens. Streams name every
 * event, open and close blocks in order, send tool input as input_json_delta fragments and
 * usage in message_start and message_delta. Faults: error statuses (529 overloaded included),
 * an `event: error` mid-stream, a connection dropped mid-stream, malformed JSON.
 * Betas as the real API has them: a body field of a beta without that beta in `anthropic-beta`
 * is a 400 "<field>: Extra inputs are not permitted" (see BETA_FIELDS). Every request is
 * recorded with its headers and query, so tests can check what reached the upstream.
 */

import {
  frameStream,
  pieces,
  script,
  type ScriptInput,
  simulatorOnError,
  type StreamFault,
} from "./text_script.ts";
import { type ListedModel, modelListAnswer } from "./model_lists.ts";

/** Fields of a messages body that count_tokens refuses, as the real API does. */
const NOT_COUNTED = [
  "max_tokens",
  "stream",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "metadata",
  "service_tier",
];

export type AnthropicFault =
  | { kind: "status"; status: number; type?: string; message?: string }
  | { kind: "malformed" }
  | StreamFault;

export interface AnthropicRecordedRequest {
  path: string;
  /** The query string as received, with its `?` (`?beta=true`), or "". */
  search: string;
  apiKey: string | null;
  version: string | null;
  /** The `anthropic-beta` values received, in order. */
  betas: string[];
  /** Every header received, names in lower case. */
  headers: Record<string, string>;
  /** The `anthropic-beta` header as received. */
  beta: string | null;
  body: Record<string, unknown>;
}

export interface AnthropicUpstreamOptions {
  /** What its model list (GET /v1/models) answers; see model_lists.ts. */
  listedModels?: ListedModel[];
  /** The largest page of the model list (below the API's own), to test paging. */
  listedPageSize?: number;
  keys?: string[];
  cachedTokens?: number;
  /** Input tokens reported as written to the cache (`cache_creation_input_tokens`). */
  cacheWriteTokens?: number;
  chunkDelayMs?: number;
  /** Tools to call by name in place of the first two offered. */
  callTools?: string[];
  /** Output tokens reported beyond those written (see ScriptInput.extraOutputTokens). */
  extraOutputTokens?: number;
}

export interface AnthropicUpstream extends AsyncDisposable {
  /** Base URL as the Anthropic SDK takes it (no /v1). */
  baseUrl: string;
  requests: AnthropicRecordedRequest[];
  faults: AnthropicFault[];
  options: AnthropicUpstreamOptions;
  /** Shuts the simulator down; `await using` does the same through `Symbol.asyncDispose`. */
  close(): Promise<void>;
}

// deno-lint-ignore no-explicit-any
type Json = any;

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

function anthropicError(
  status: number,
  message: string,
  type = ERROR_TYPES[status] ?? "api_error",
) {
  return Response.json({ type: "error", error: { type, message }, request_id: "req_sim" }, {
    status,
  });
}

/** The simulator's signature of a thinking text: a replayed block must carry exactly this. */
export function anthropicSignature(thinking: string): string {
  return `sig_${btoa(encodeURIComponent(thinking))}`;
}

/**
 * Body fields the real API accepts only with one of their betas (anthropic-sdk-typescript: the
 * fields of `BetaMessageCreateParams` that `MessageCreateParams` lacks). `output_config.format`
 * needs none: it replaced the beta `output_format` when structured outputs became generally
 * available (SDK 0.72.0, January 2026).
 */
export const BETA_FIELDS: Record<string, string[]> = {
  context_management: ["context-management-2025-06-27"],
  output_format: ["structured-outputs-2025-11-13", "structured-outputs-2025-12-15"],
  mcp_servers: ["mcp-client-2025-04-04", "mcp-client-2025-11-20"],
};

/** The refusal of a body field whose beta was not sent, or null. */
function missingBeta(body: Json, betas: string[]): string | null {
  for (const [field, needs] of Object.entries(BETA_FIELDS)) {
    if (body?.[field] != null && !needs.some((beta) => betas.includes(beta))) {
      return `${field}: Extra inputs are not permitted`;
    }
  }
  return null;
}

function blocks(content: Json): Json[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/**
 * Checks a messages body (`betas`: the request's anthropic-beta values); returns the script facts
 * or the error message.
 */
function read(body: Json, betas: string[] = []): ScriptInput | string {
  if (typeof body.model !== "string") return "model: Field required";
  if (!Number.isInteger(body.max_tokens)) return "max_tokens: Field required";
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return "messages: at least one message is required";
  }
  let previousToolUses = new Set<string>();
  let images = 0;
  let allText = typeof body.system === "string"
    ? body.system
    : (body.system ?? []).map((block: Json) => block.text ?? "").join("");
  for (const [index, message] of body.messages.entries()) {
    // With its beta, the API takes system instructions inside the conversation too.
    if (message.role === "system" && betas.includes("mid-conversation-system-2026-04-07")) {
      allText += blocks(message.content).map((block: Json) => block.text ?? "").join("");
      continue;
    }
    if (message.role !== "user" && message.role !== "assistant") {
      return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    }
    const content = blocks(message.content);
    if (!Array.isArray(content) || content.length === 0) {
      return `messages.${index}: all messages must have non-empty content`;
    }
    const toolUses = new Set<string>();
    let seenOther = false;
    for (const block of content) {
      switch (block.type) {
        case "text":
          if (!block.text) return `messages.${index}: text content blocks must be non-empty`;
          allText += block.text;
          seenOther = true;
          break;
        case "image":
          if (block.source?.type !== "base64" && block.source?.type !== "url") {
            return `messages.${index}: image source type must be base64 or url`;
          }
          images++;
          seenOther = true;
          break;
        case "tool_use":
          if (message.role !== "assistant") return `messages.${index}: tool_use in a user turn`;
          if (typeof block.input !== "object" || Array.isArray(block.input)) {
            return `messages.${index}: tool_use.input: Input should be a valid dictionary`;
          }
          toolUses.add(block.id);
          allText += JSON.stringify(block.input);
          break;
        case "tool_result":
          if (!previousToolUses.has(block.tool_use_id)) {
            return `messages.${index}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
          }
          if (seenOther) {
            return `messages.${index}: \`tool_result\` blocks must come first in the user message content`;
          }
          allText += typeof block.content === "string"
            ? block.content
            : JSON.stringify(block.content);
          break;
        case "thinking":
          if (message.role !== "assistant" || !block.signature) {
            return `messages.${index}: thinking blocks need a signature`;
          }
          if (block.signature !== anthropicSignature(block.thinking ?? "")) {
            return `messages.${index}.content: Invalid \`signature\` in \`thinking\` block`;
          }
          break;
        case "redacted_thinking":
          if (message.role !== "assistant" || typeof block.data !== "string" || !block.data) {
            return `messages.${index}: redacted_thinking.data: Field required`;
          }
          break;
        default:
          return `messages.${index}: unknown content block type ${block.type}`;
      }
    }
    previousToolUses = toolUses;
  }
  const thinking = body.thinking?.type === "enabled";
  const lastAssistant = body.messages.findLast((message: Json) => message.role === "assistant");
  const lastTurn = lastAssistant ? blocks(lastAssistant.content) : [];
  if (
    thinking && lastTurn.some((block: Json) => block.type === "tool_use") &&
    !["thinking", "redacted_thinking"].includes(lastTurn[0]?.type)
  ) {
    return `messages.${body.messages.lastIndexOf(lastAssistant)}.content.0.type: Expected ` +
      "`thinking` or `redacted_thinking`, but found `" + lastTurn[0]?.type + "`. When " +
      "`thinking` is enabled, a final `assistant` message must start with a thinking block.";
  }
  if (thinking) {
    const budget = body.thinking.budget_tokens;
    if (!(budget >= 1024)) {
      return "thinking.budget_tokens: Input should be greater than or equal to 1024";
    }
    if (budget >= body.max_tokens) {
      return "`max_tokens` must be greater than `thinking.budget_tokens`";
    }
    if (body.temperature !== undefined && body.temperature !== 1) {
      return "`temperature` may only be set to 1 when thinking is enabled";
    }
  }
  for (const tool of body.tools ?? []) {
    if (!tool.name || typeof tool.input_schema !== "object") {
      return "tools: input_schema: Field required";
    }
  }
  const last = body.messages.at(-1);
  const lastBlocks = last.role === "user" ? blocks(last.content) : [];
  const choice = body.tool_choice;
  return {
    lastUserText: lastBlocks.filter((block: Json) => block.type === "text")
      .map((block: Json) => block.text).join(""),
    allText,
    messages: body.messages.length,
    tools: (body.tools ?? []).map((tool: Json) => tool.name),
    toolChoice: choice?.type === "any"
      ? "required"
      : choice?.type === "tool"
      ? { name: choice.name }
      : choice?.type === "none"
      ? "none"
      : undefined,
    toolResults: lastBlocks.filter((block: Json) => block.type === "tool_result")
      .map((block: Json) =>
        typeof block.content === "string" ? block.content : JSON.stringify(block.content)
      ),
    images,
    maxTokens: body.max_tokens,
    reasoning: thinking,
  };
}

const STOP = { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use" };

export function startAnthropicUpstream(options: AnthropicUpstreamOptions = {}): AnthropicUpstream {
  const keys = options.keys ?? ["sk-ant-upstream-test"];
  const listedModels = options.listedModels ??
    [{ id: "claude-sonnet-4-5" }, { id: "claude-haiku-4-5" }];
  const state: AnthropicUpstream = {
    baseUrl: "",
    requests: [],
    faults: [],
    options,
    close: async () => {},
    [Symbol.asyncDispose]: () => state.close(),
  };

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
    onError: simulatorOnError,
  }, async (req) => {
    const url = new URL(req.url);
    const listed = modelListAnswer(req, {
      dialect: "anthropic",
      keys,
      models: listedModels,
      maxPage: options.listedPageSize,
    });
    if (listed) return listed;
    const apiKey = req.headers.get("x-api-key") ??
      req.headers.get("authorization")?.replace(/^Bearer /, "") ?? null;
    const version = req.headers.get("anthropic-version");
    let body: Json;
    try {
      body = await req.json();
    } catch {
      return anthropicError(400, "There was an issue with the request body: invalid JSON");
    }
    const betas = (req.headers.get("anthropic-beta") ?? "").split(",").map((beta) => beta.trim())
      .filter((beta) => beta !== "");
    state.requests.push({
      path: url.pathname,
      search: url.search,
      apiKey,
      version,
      betas,
      headers: Object.fromEntries(req.headers),
      beta: req.headers.get("anthropic-beta"),
      body,
    });
    if (!apiKey || !keys.includes(apiKey)) return anthropicError(401, "invalid x-api-key");
    if (!version) return anthropicError(400, "anthropic-version: header is required");
    const betaRefusal = missingBeta(body, betas);
    if (betaRefusal) return anthropicError(400, betaRefusal);
    if (url.pathname === "/v1/messages/count_tokens") {
      const extra = NOT_COUNTED.find((field) => field in body);
      if (extra) return anthropicError(400, `${extra}: Extra inputs are not permitted`);
      // A count asks no answer: any max_tokens its thinking fits in.
      const facts = read({ ...body, max_tokens: (body.thinking?.budget_tokens ?? 0) + 1 }, betas);
      if (typeof facts === "string") return anthropicError(400, facts);
      return Response.json({ input_tokens: script(facts).usage.input });
    }
    if (req.method !== "POST" || url.pathname !== "/v1/messages") {
      return anthropicError(404, `Not found: ${url.pathname}`);
    }
    const facts = read(body, betas);
    if (typeof facts === "string") return anthropicError(400, facts);
    const fault = state.faults.shift();
    if (fault?.kind === "status") {
      return anthropicError(fault.status, fault.message ?? "Simulated failure", fault.type);
    }
    if (fault?.kind === "malformed") {
      return new Response('{"id":"msg_broken","type":"message","content":[', {
        headers: { "content-type": "application/json" },
      });
    }
    const answer = script({
      ...facts,
      callTools: options.callTools,
      extraOutputTokens: options.extraOutputTokens,
    }, options.cachedTokens);
    const id = `msg_sim${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
    const signature = anthropicSignature(answer.reasoning);
    // Reads and writes of the cache are counted apart from input_tokens, as the API does.
    const written = Math.min(
      options.cacheWriteTokens ?? 0,
      answer.usage.input - answer.usage.cached,
    );
    const usage = {
      input_tokens: answer.usage.input - answer.usage.cached - written,
      cache_creation_input_tokens: written,
      cache_read_input_tokens: answer.usage.cached,
      cache_creation: { ephemeral_5m_input_tokens: written, ephemeral_1h_input_tokens: 0 },
      output_tokens: answer.usage.output,
      service_tier: "standard",
    };
    if (!body.stream) {
      const content: Json[] = [];
      if (answer.reasoning) {
        content.push({ type: "thinking", thinking: answer.reasoning, signature });
      }
      if (answer.text) content.push({ type: "text", text: answer.text });
      for (const call of answer.calls) {
        content.push({
          type: "tool_use",
          id: call.id.replace("call_", "toolu_"),
          name: call.name,
          input: call.args,
        });
      }
      return Response.json({
        id,
        type: "message",
        role: "assistant",
        model: body.model,
        content,
        stop_reason: STOP[answer.stop],
        stop_sequence: null,
        usage,
      });
    }
    const frames: string[] = [];
    const event = (type: string, data: Json) =>
      frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event("message_start", {
      message: {
        id,
        type: "message",
        role: "assistant",
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    });
    event("ping", {});
    let index = 0;
    if (answer.reasoning) {
      event("content_block_start", {
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      });
      for (const piece of pieces(answer.reasoning, 7)) {
        event("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } });
      }
      event("content_block_delta", { index, delta: { type: "signature_delta", signature } });
      event("content_block_stop", { index: index++ });
    }
    if (answer.text) {
      event("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const piece of pieces(answer.text, 3)) {
        event("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
      }
      event("content_block_stop", { index: index++ });
    }
    for (const call of answer.calls) {
      event("content_block_start", {
        index,
        content_block: {
          type: "tool_use",
          id: call.id.replace("call_", "toolu_"),
          name: call.name,
          input: {},
        },
      });
      event("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: "" },
      });
      for (const piece of pieces(JSON.stringify(call.args), 5)) {
        event("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: piece },
        });
      }
      event("content_block_stop", { index: index++ });
    }
    event("message_delta", {
      delta: { stop_reason: STOP[answer.stop], stop_sequence: null },
      usage: { output_tokens: answer.usage.output },
    });
    event("message_stop", {});
    return frameStream(frames, {
      fault: fault as StreamFault | undefined,
      // The message's usage (as its last message_delta carries it), before message_stop.
      usageFrame: `event: message_delta\ndata: ${
        JSON.stringify({
          type: "message_delta",
          delta: { stop_reason: STOP[answer.stop], stop_sequence: null },
          usage: { output_tokens: answer.usage.output },
        })
      }\n\n`,
      errorFrame: (_sent, message) =>
        `event: error\ndata: ${
          JSON.stringify({
            type: "error",
            error: { type: "overloaded_error", message: message ?? "Overloaded" },
          })
        }\n\n`,
      delayMs: options.chunkDelayMs,
      signal: req.signal,
    });
  });
  state.baseUrl = `http://127.0.0.1:${server.addr.port}`;
  state.close = () => server.shutdown();
  return state;
}
