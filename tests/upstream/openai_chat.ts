/**
 * A simulated OpenAI-compatible chat-completions upstream. It answers like the real API —
 * role-first deltas, tool calls streamed in argument fragments, usage only in a last
 * choice-less chunk when asked, `data: [DONE]` — and it can misbehave on request: error statuses,
 * a stream that dies midway, malformed JSON, an in-stream error event, a hang, slow chunks.
 * Frames are written split at awkward byte offsets to exercise the gateway's SSE parsing.
 */

import {
  MALFORMED_FRAME,
  oversizedFrame,
  pieces,
  script,
  type ScriptInput,
  SimulatedConnectionLoss,
  simulatorOnError,
  type StreamBreak,
} from "./text_script.ts";
import { type ListedModel, modelListAnswer } from "./model_lists.ts";

export type UpstreamFault =
  | { kind: "status"; status: number; message?: string; retryAfter?: string }
  | { kind: "die_mid_stream"; afterChunks: number }
  /** An error chunk in place of chunk `afterChunks`, with `message` if given. */
  | { kind: "in_stream_error"; afterChunks: number; message?: string }
  /** Chunk `afterChunks` sent with `bytes` of JSON whitespace inside it (oversizedFrame). */
  | { kind: "oversized_event"; afterChunks: number; bytes: number }
  /** A usage chunk (as the stream's last would be) in place of chunk `afterChunks`, then a break. */
  | { kind: "usage_then_break"; afterChunks: number; how?: StreamBreak }
  | { kind: "malformed" }
  | { kind: "hang" }
  | { kind: "no_usage" };

export interface RecordedRequest {
  path: string;
  authorization: string | null;
  body: Record<string, unknown>;
}

export interface SimulatedUpstreamOptions {
  /** What its model list (GET /v1/models) answers; see model_lists.ts. */
  listedModels?: ListedModel[];
  /** Upstream keys accepted; others get 401. */
  keys?: string[];
  /** Takes no key, as Ollama and vLLM without `--api-key` do: any authorization, or none. */
  keyless?: boolean;
  /**
   * Reasons whether asked or not, writing `reasoning_content` (DeepSeek's deepseek-reasoner, and
   * vLLM's and Ollama's reasoning models).
   */
  alwaysReasons?: boolean;
  /**
   * As Mistral: refuses `stream_options` (422 extra_forbidden) and puts usage in every stream's
   * finish chunk, unasked.
   */
  mistral?: boolean;
  /**
   * As OpenRouter (and Ollama): reasoning in `reasoning` rather than `reasoning_content`, and
   * `: OPENROUTER PROCESSING` SSE comments before and between a stream's chunks.
   */
  openrouter?: boolean;
  /** Milliseconds between stream chunks. */
  chunkDelayMs?: number;
  /** Characters of content per chunk. */
  chunkSize?: number;
  /** Cached prompt tokens reported in usage. */
  cachedTokens?: number;
  /** Tools to call by name in place of the first two offered. */
  callTools?: string[];
  /** Output tokens reported beyond those written (see ScriptInput.extraOutputTokens). */
  extraOutputTokens?: number;
  /**
   * Streams parallel tool calls interleaved, as the chat format allows: every call's first
   * chunk, then their argument pieces in turn (call 0, call 1, call 0, …).
   */
  interleaveToolCalls?: boolean;
}

export interface SimulatedUpstream extends AsyncDisposable {
  /** Base URL as the OpenAI SDK takes it (ends with /v1). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Faults applied to the next requests, one each, in order. */
  faults: UpstreamFault[];
  /** A fault applied to every request while set. */
  fault?: UpstreamFault;
  options: SimulatedUpstreamOptions;
  /** Streams that were cancelled by the gateway (client went away upstream of us). */
  cancelledStreams: number;
  /** Shuts the simulator down; `await using` does the same through `Symbol.asyncDispose`. */
  close(): Promise<void>;
}

interface ChatMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string }> | null;
}

function textOf(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => part.text ?? "").join("");
  return "";
}

/** Usage the simulator reports for a request and its answer. */
export function simulatedUsage(messages: ChatMessage[], outputChars: number, cached = 0) {
  const promptChars = messages.reduce((sum, m) => sum + textOf(m.content).length, 0);
  const prompt = Math.ceil(promptChars / 4) + 3 * messages.length;
  const completion = Math.max(1, Math.ceil(outputChars / 4));
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: Math.min(cached, prompt) },
  };
}

/** The real API's check: a tool message answers a tool call of the assistant message before. */
function checkToolMessages(messages: Array<Record<string, unknown>>): string | null {
  let open = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") {
      open = new Set(
        ((message.tool_calls ?? []) as Array<{ id: string }>).map((call) => call.id),
      );
    } else if (message.role === "tool") {
      if (!open.has(message.tool_call_id as string)) {
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      }
    } else open = new Set();
  }
  return null;
}

/** The real API's check: chat completions take only `function` and `custom` tools. */
function checkToolTypes(tools: unknown): { message: string; param: string } | null {
  if (!Array.isArray(tools)) return null;
  const index = tools.findIndex((tool) => tool?.type !== "function" && tool?.type !== "custom");
  if (index < 0) return null;
  return {
    message: `Invalid value: '${
      tools[index]?.type
    }'. Supported values are: 'function' and 'custom'.`,
    param: `tools[${index}].type`,
  };
}

function errorBody(status: number, message: string, param: string | null = null) {
  const type = status === 429
    ? "rate_limit_error"
    : status >= 500
    ? "server_error"
    : "invalid_request_error";
  return JSON.stringify({ error: { message, type, param, code: `sim_${status}` } });
}

const encoder = new TextEncoder();
const inStreamErrorFrame = (message?: string) =>
  `data: ${
    JSON.stringify({
      error: {
        message: message ?? "Simulated overload",
        type: "server_error",
        param: null,
        code: "overloaded",
      },
    })
  }\n\n`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the simulator on a free loopback port. */
export function startOpenAIChatUpstream(options: SimulatedUpstreamOptions = {}): SimulatedUpstream {
  const state: SimulatedUpstream = {
    baseUrl: "",
    requests: [],
    faults: [],
    options,
    cancelledStreams: 0,
    close: async () => {},
    [Symbol.asyncDispose]: () => state.close(),
  };
  const keys = options.keys ?? ["sk-upstream-test"];
  const listedModels = options.listedModels ??
    [{ id: "gpt-4o-mini" }, { id: "gpt-4o" }, { id: "o4-mini" }];

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
    onError: simulatorOnError,
  }, async (req) => {
    const url = new URL(req.url);
    const listed = modelListAnswer(req, { dialect: "openai", keys, models: listedModels });
    if (listed) return listed;
    if (req.method !== "POST" || url.pathname !== "/v1/chat/completions") {
      return new Response(errorBody(404, `Unknown path ${url.pathname}`), { status: 404 });
    }
    const authorization = req.headers.get("authorization");
    const body = await req.json();
    state.requests.push({ path: url.pathname, authorization, body });
    const toolTypes = checkToolTypes(body.tools);
    if (toolTypes) {
      return new Response(errorBody(400, toolTypes.message, toolTypes.param), {
        status: 400,
        headers: { "content-type": "application/json" },
      });
    }
    const toolOrder = checkToolMessages(body.messages ?? []);
    if (toolOrder) {
      return new Response(errorBody(400, toolOrder), {
        status: 400,
        headers: { "content-type": "application/json" },
      });
    }
    if (!options.keyless && !keys.some((key) => authorization === `Bearer ${key}`)) {
      return new Response(errorBody(401, "Incorrect API key provided"), {
        status: 401,
        headers: { "content-type": "application/json" },
      });
    }
    if (options.mistral && body.stream_options !== undefined) {
      const detail = [{
        type: "extra_forbidden",
        loc: ["body", "stream_options"],
        msg: "Extra inputs are not permitted",
        input: body.stream_options,
      }];
      return Response.json({
        object: "error",
        message: { detail },
        type: "invalid_request_error",
        param: null,
        code: null,
      }, { status: 422 });
    }
    const fault = state.faults.shift() ?? state.fault;
    if (fault?.kind === "status") {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (fault.retryAfter) headers["retry-after"] = fault.retryAfter;
      return new Response(errorBody(fault.status, fault.message ?? "Simulated failure"), {
        status: fault.status,
        headers,
      });
    }
    if (fault?.kind === "hang") {
      await new Promise((resolve) => req.signal.addEventListener("abort", resolve));
      return new Response(null, { status: 499 });
    }
    return body.stream ? streamAnswer(body, fault, req.signal) : jsonAnswer(body, fault);
  });
  state.baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;
  state.close = () => server.shutdown();

  function plan(body: Record<string, unknown>) {
    const messages = body.messages as ChatMessage[];
    const tools = (body.tools as
      | Array<{ function?: { name: string }; custom?: { name: string } }>
      | undefined) ??
      [];
    const lastUser = [...messages].reverse().find((m) => m.role === "user");
    const trailing: string[] = [];
    for (const message of [...messages].reverse()) {
      if (message.role !== "tool") break;
      trailing.unshift(textOf(message.content));
    }
    const choice = body.tool_choice as
      | string
      | { type: string; function: { name: string } }
      | undefined;
    const images = messages.reduce(
      (n, m) =>
        n + (Array.isArray(m.content) ? m.content.filter((p) => p.type === "image_url").length : 0),
      0,
    );
    const answer = script({
      lastUserText: textOf(lastUser?.content),
      allText: messages.map((m) => textOf(m.content)).join(""),
      messages: messages.length,
      tools: tools.map((tool) => tool.function?.name ?? tool.custom?.name ?? ""),
      toolChoice: typeof choice === "object"
        ? { name: choice.function.name }
        : choice as ScriptInput["toolChoice"],
      toolResults: trailing,
      images,
      maxTokens: (body.max_completion_tokens ?? body.max_tokens) as number | undefined,
      reasoning: body.reasoning_effort !== undefined || options.alwaysReasons === true,
      callTools: options.callTools,
    });
    const calls = answer.calls.map((call) => ({
      id: call.id,
      name: call.name,
      arguments: JSON.stringify(call.args),
    }));
    const outputChars = calls.length
      ? calls.reduce((n, c) => n + c.arguments.length, 0)
      : answer.text.length;
    // `n` choices, each the same answer; usage counts the prompt once, every choice's output.
    const choices = typeof body.n === "number" && body.n > 1 ? body.n : 1;
    const single = simulatedUsage(messages, outputChars, options.cachedTokens);
    const reasoningTokens = answer.usage.reasoning * choices;
    const usage = {
      ...single,
      completion_tokens: single.completion_tokens * choices,
      total_tokens: single.prompt_tokens + single.completion_tokens * choices,
    };
    const extraTokens = reasoningTokens + (options.extraOutputTokens ?? 0);
    return {
      choices,
      messages,
      reasoning: answer.reasoning,
      content: calls.length ? null : answer.text,
      calls,
      finish: answer.stop,
      usage: {
        ...usage,
        completion_tokens: usage.completion_tokens + extraTokens,
        total_tokens: usage.total_tokens + extraTokens,
        ...(reasoningTokens
          ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } }
          : {}),
      },
    };
  }

  function jsonAnswer(body: Record<string, unknown>, fault?: UpstreamFault) {
    if (fault?.kind === "malformed") {
      return new Response('{"id": "chatcmpl-broken", "choices": [', {
        headers: { "content-type": "application/json" },
      });
    }
    const answer = plan(body);
    const message: Record<string, unknown> = {
      role: "assistant",
      content: answer.content,
      refusal: null,
    };
    if (answer.reasoning) {
      message[options.openrouter ? "reasoning" : "reasoning_content"] = answer.reasoning;
    }
    if (answer.calls.length) {
      message.tool_calls = answer.calls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    return Response.json({
      id: `chatcmpl-${crypto.randomUUID()}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: Array.from({ length: answer.choices }, (_, index) => ({
        index,
        message,
        logprobs: null,
        finish_reason: answer.finish,
      })),
      ...(fault?.kind === "no_usage" ? {} : { usage: answer.usage }),
    });
  }

  function streamAnswer(
    body: Record<string, unknown>,
    fault: UpstreamFault | undefined,
    signal: AbortSignal,
  ) {
    const answer = plan(body);
    const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)
          ?.include_usage === true && fault?.kind !== "no_usage";
    const id = `chatcmpl-${crypto.randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    // Each chunk carries one choice; with `n` choices, their chunks alternate, as on the API.
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id,
      object: "chat.completion.chunk",
      created,
      model: body.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    });
    const chunks: unknown[] = [
      chunk({ role: "assistant", content: answer.content === null ? null : "" }),
    ];
    const size = options.chunkSize ?? 3;
    for (const piece of pieces(answer.reasoning, 6)) {
      chunks.push(chunk({ [options.openrouter ? "reasoning" : "reasoning_content"]: piece }));
    }
    if (answer.content) {
      for (let i = 0; i < answer.content.length; i += size) {
        chunks.push(chunk({ content: answer.content.slice(i, i + size) }));
      }
    }
    const callStart = (call: { id: string; name: string }, index: number) =>
      chunk({
        tool_calls: [{
          index,
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: "" },
        }],
      });
    const argumentChunks = (call: { arguments: string }, index: number) =>
      pieces(call.arguments, 5).map((piece) =>
        chunk({ tool_calls: [{ index, function: { arguments: piece } }] })
      );
    if (options.interleaveToolCalls) {
      chunks.push(...answer.calls.map(callStart));
      const each = answer.calls.map(argumentChunks);
      for (let turn = 0; each.some((list) => turn < list.length); turn++) {
        for (const list of each) if (turn < list.length) chunks.push(list[turn]);
      }
    } else {
      answer.calls.forEach((call, index) => {
        chunks.push(callStart(call, index), ...argumentChunks(call, index));
      });
    }
    chunks.push(
      options.mistral
        ? { ...chunk({}, answer.finish), usage: answer.usage }
        : chunk({}, answer.finish),
    );
    if (answer.choices > 1) {
      const one = chunks.splice(0);
      for (const item of one as Array<{ choices: Array<{ index: number }> }>) {
        for (let index = 0; index < answer.choices; index++) {
          chunks.push({ ...item, choices: [{ ...item.choices[0], index }] });
        }
      }
    }
    if (includeUsage) {
      chunks.push({
        id,
        object: "chat.completion.chunk",
        created,
        model: body.model,
        choices: [],
        usage: answer.usage,
      });
    }

    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        let sent = 0;
        for (const item of chunks) {
          if (cancelled || signal.aborted) return;
          if (fault?.kind === "die_mid_stream" && sent === fault.afterChunks) {
            // Let what was sent reach the wire first, as a real connection loss would.
            if (sent > 0) await sleep(30);
            controller.error(new SimulatedConnectionLoss());
            return;
          }
          if (fault?.kind === "usage_then_break" && sent === fault.afterChunks) {
            const usage = { id, object: "chat.completion.chunk", created, model: body.model };
            controller.enqueue(encoder.encode(
              `data: ${JSON.stringify({ ...usage, choices: [], usage: answer.usage })}\n\n`,
            ));
            if (fault.how === "error_event" || fault.how === "malformed") {
              controller.enqueue(encoder.encode(
                fault.how === "malformed" ? MALFORMED_FRAME : inStreamErrorFrame(),
              ));
              controller.close();
              return;
            }
            await sleep(30);
            controller.error(new SimulatedConnectionLoss());
            return;
          }
          if (fault?.kind === "in_stream_error" && sent === fault.afterChunks) {
            controller.enqueue(encoder.encode(inStreamErrorFrame(fault.message)));
            controller.close();
            return;
          }
          let frame = `data: ${JSON.stringify(item)}\n\n`;
          if (options.openrouter && sent % 3 === 0) frame = `: OPENROUTER PROCESSING\n\n${frame}`;
          if (fault?.kind === "oversized_event" && sent === fault.afterChunks) {
            frame = oversizedFrame(frame, fault.bytes);
          }
          const cut = Math.max(1, Math.floor(frame.length / 2) + (sent % 7));
          controller.enqueue(encoder.encode(frame.slice(0, cut)));
          controller.enqueue(encoder.encode(frame.slice(cut)));
          sent++;
          if (options.chunkDelayMs) await sleep(options.chunkDelayMs);
        }
        if (!cancelled) {
          controller.enqueue(encoder.encode("data: [DONE]\n\n"));
          controller.close();
        }
      },
      cancel() {
        cancelled = true;
        state.cancelledStreams++;
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream" } });
  }

  return state;
}

/** A TCP server that reads a request and then drops the connection without answering. */
export interface ResettingServer extends AsyncDisposable {
  baseUrl: string;
  connections: number;
  close(): void;
}

export function startResettingServer(): ResettingServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const state: ResettingServer = {
    baseUrl: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/v1`,
    connections: 0,
    close: () => listener.close(),
    [Symbol.asyncDispose]: () => {
      state.close();
      return Promise.resolve();
    },
  };
  (async () => {
    try {
      for await (const conn of listener) {
        state.connections++;
        const buffer = new Uint8Array(4096);
        conn.read(buffer).catch(() => null).finally(() => {
          try {
            conn.close();
          } catch {
            // already closed
          }
        });
      }
    } catch {
      // listener closed
    }
  })();
  return state;
}
