/**
 * A simulated OpenAI responses upstream (`POST /v1/responses`, and `/v1/responses/input_tokens`,
 * which refuses the fields it does not take, as the real API does). It checks input items as the real
 * API does (a function_call_output whose call_id matches no function_call in the input, an
 * unknown item type, a function tool without a name, a replayed reasoning item without encrypted
 * content when nothing is stored or with content it did not encrypt: 400) and answers with output
 * items (reasoning with a summary when `reasoning` is set, with `encrypted_content` when
 * `include` asks for it; a message, or function calls) and usage with
 * cached and reasoning details. Streams are typed events with sequence numbers and no [DONE]:
 * response.created, response.in_progress, items added, content parts, text and argument deltas,
 * the matching done events, response.completed (or response.incomplete at max_output_tokens).
 * Faults: error statuses, an `event: error` mid-stream, a dropped connection, malformed JSON.
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

export type ResponsesFault =
  | { kind: "status"; status: number; message?: string }
  | { kind: "malformed" }
  | StreamFault;

export interface ResponsesRecordedRequest {
  /** `/v1/responses`, or `/v1/responses/input_tokens`. */
  path: string;
  authorization: string | null;
  body: Record<string, unknown>;
}

export interface ResponsesUpstreamOptions {
  /** What its model list (GET /v1/models) answers; see model_lists.ts. */
  listedModels?: ListedModel[];
  keys?: string[];
  cachedTokens?: number;
  /**
   * Tools to call by name in place of the first two offered; a function of a `namespace` tool is
   * named `<namespace>.<name>` here and called as `{namespace, name}`, as the real API does.
   */
  callTools?: string[];
  /** Output tokens reported beyond those written (see ScriptInput.extraOutputTokens). */
  extraOutputTokens?: number;
}

export interface ResponsesUpstream extends AsyncDisposable {
  baseUrl: string;
  requests: ResponsesRecordedRequest[];
  faults: ResponsesFault[];
  options: ResponsesUpstreamOptions;
  /** Shuts the simulator down; `await using` does the same through `Symbol.asyncDispose`. */
  close(): Promise<void>;
}

// deno-lint-ignore no-explicit-any
type Json = any;

function openaiError(status: number, message: string, param: string | null = null) {
  const type = status >= 500
    ? "server_error"
    : status === 429
    ? "rate_limit_error"
    : "invalid_request_error";
  return Response.json({ error: { message, type, param, code: null } }, { status });
}

/** What the simulator's encrypted reasoning starts with (OpenAI's is Fernet: `gAAAAB…`). */
export const ENCRYPTED_PREFIX = "gAAAAB_sim_";

function textOf(content: Json): string {
  if (typeof content === "string") return content;
  return (content ?? []).map((part: Json) => part.text ?? "").join("");
}

/** Function names the model may call: a namespace's functions as `namespace.name`. */
function toolNamesOf(tools: Json[]): string[] {
  return tools.flatMap((tool: Json): string[] =>
    tool.type === "function"
      ? [tool.name]
      : tool.type === "namespace"
      ? (tool.tools ?? []).filter((inner: Json) => inner.type === "function")
        .map((inner: Json) => `${tool.name}.${inner.name}`)
      : []
  );
}

/** The body fields `POST /v1/responses/input_tokens` takes; others are refused as unknown. */
const COUNTED_FIELDS = [
  "model",
  "input",
  "instructions",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "reasoning",
  "text",
  "truncation",
  "conversation",
  "previous_response_id",
  "personality",
];

function read(body: Json): ScriptInput | string {
  if (typeof body.model !== "string") return "Missing required parameter: 'model'.";
  const items = typeof body.input === "string"
    ? [{ role: "user", content: body.input }]
    : body.input;
  if (!Array.isArray(items)) return "Invalid type for 'input'.";
  const calls = new Set<string>();
  let allText = body.instructions ?? "";
  let images = 0;
  let lastUser = "";
  let results: string[] = [];
  for (const [index, item] of items.entries()) {
    const type = item.type ?? "message";
    if (type === "message") {
      if (!["user", "assistant", "system", "developer"].includes(item.role)) {
        return `Invalid value: '${item.role}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`;
      }
      for (const part of Array.isArray(item.content) ? item.content : []) {
        if (part.type === "input_image") images++;
        else if (!["input_text", "output_text", "refusal"].includes(part.type)) {
          return `Invalid value: '${part.type}' at input[${index}].content.`;
        }
      }
      allText += textOf(item.content);
      if (item.role === "user") {
        lastUser = textOf(item.content);
        results = [];
      }
    } else if (type === "function_call") {
      calls.add(item.call_id);
      allText += item.arguments ?? "";
    } else if (type === "reasoning") {
      if (typeof item.encrypted_content !== "string") {
        if (body.store === false) {
          return `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`;
        }
      } else if (!item.encrypted_content.startsWith(ENCRYPTED_PREFIX)) {
        return `The encrypted content for item ${
          item.id ?? `input[${index}]`
        } could not be verified.`;
      }
    } else if (type === "function_call_output") {
      if (!calls.has(item.call_id)) {
        return `No tool call found for function call output with call_id ${item.call_id}.`;
      }
      results.push(typeof item.output === "string" ? item.output : JSON.stringify(item.output));
      allText += results.at(-1);
    } else {
      return `Invalid value: '${type}' at input[${index}].type.`;
    }
  }
  for (const tool of body.tools ?? []) {
    if (tool.type === "function" && !tool.name) {
      return "Missing required parameter: 'tools[0].name'.";
    }
  }
  const lastItem = items.at(-1);
  const endsWithResults = lastItem?.type === "function_call_output";
  const choice = body.tool_choice;
  return {
    lastUserText: lastUser,
    allText,
    messages: items.length,
    tools: toolNamesOf(body.tools ?? []),
    toolChoice: typeof choice === "string"
      ? choice as ScriptInput["toolChoice"]
      : choice?.type === "function"
      ? { name: choice.name }
      : undefined,
    toolResults: endsWithResults ? results : [],
    images,
    maxTokens: body.max_output_tokens,
    reasoning: body.reasoning?.effort !== undefined,
  };
}

export function startOpenAIResponsesUpstream(
  options: ResponsesUpstreamOptions = {},
): ResponsesUpstream {
  const keys = options.keys ?? ["sk-upstream-test"];
  const listedModels = options.listedModels ?? [{ id: "gpt-5-mini" }, { id: "gpt-5" }];
  const state: ResponsesUpstream = {
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
    const listed = modelListAnswer(req, { dialect: "openai", keys, models: listedModels });
    if (listed) return listed;
    const counting = url.pathname === "/v1/responses/input_tokens";
    if (req.method !== "POST" || (url.pathname !== "/v1/responses" && !counting)) {
      return openaiError(404, `Unknown path ${url.pathname}`);
    }
    const authorization = req.headers.get("authorization");
    let body: Json;
    try {
      body = await req.json();
    } catch {
      return openaiError(400, "We could not parse the JSON body of your request.");
    }
    state.requests.push({ path: url.pathname, authorization, body });
    if (!keys.some((key) => authorization === `Bearer ${key}`)) {
      return openaiError(401, "Incorrect API key provided");
    }
    if (counting) {
      const unknown = Object.keys(body).find((field) => !COUNTED_FIELDS.includes(field));
      if (unknown) return openaiError(400, `Unknown parameter: '${unknown}'.`, unknown);
    }
    const facts = read(body);
    if (typeof facts === "string") return openaiError(400, facts);
    if (counting) {
      return Response.json({
        object: "response.input_tokens",
        input_tokens: script(facts).usage.input,
      });
    }
    const fault = state.faults.shift();
    if (fault?.kind === "status") {
      return openaiError(fault.status, fault.message ?? "Simulated failure");
    }
    if (fault?.kind === "malformed") {
      return new Response('{"id":"resp_broken","output":[', {
        headers: { "content-type": "application/json" },
      });
    }
    const answer = script({
      ...facts,
      callTools: options.callTools,
      extraOutputTokens: options.extraOutputTokens,
    }, options.cachedTokens);
    const id = `resp_${crypto.randomUUID().replaceAll("-", "")}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = {
      input_tokens: answer.usage.input,
      input_tokens_details: { cached_tokens: answer.usage.cached, cache_write_tokens: 0 },
      output_tokens: answer.usage.output,
      output_tokens_details: { reasoning_tokens: answer.usage.reasoning },
      total_tokens: answer.usage.input + answer.usage.output,
    };
    const incomplete = answer.stop === "length";
    const output: Json[] = [];
    if (answer.reasoning) {
      output.push({
        id: `rs_${crypto.randomUUID().replaceAll("-", "")}`,
        type: "reasoning",
        summary: [{ type: "summary_text", text: answer.reasoning }],
        ...((body.include ?? []).includes("reasoning.encrypted_content")
          ? { encrypted_content: `${ENCRYPTED_PREFIX}${crypto.randomUUID()}` }
          : {}),
      });
    }
    if (answer.text) {
      output.push({
        id: `msg_${crypto.randomUUID().replaceAll("-", "")}`,
        type: "message",
        status: incomplete ? "incomplete" : "completed",
        role: "assistant",
        content: [{ type: "output_text", text: answer.text, annotations: [], logprobs: [] }],
      });
    }
    for (const call of answer.calls) {
      output.push({
        id: `fc_${crypto.randomUUID().replaceAll("-", "")}`,
        type: "function_call",
        status: "completed",
        call_id: call.id,
        // A namespaced function is called by its own name, with its namespace beside it.
        ...(call.name.includes(".")
          ? { name: call.name.split(".")[1], namespace: call.name.split(".")[0] }
          : { name: call.name }),
        arguments: JSON.stringify(call.args),
      });
    }
    const response = (status: string, withOutput: boolean) => ({
      id,
      object: "response",
      created_at: created,
      status,
      error: null,
      incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
      instructions: body.instructions ?? null,
      model: body.model,
      output: withOutput ? output : [],
      parallel_tool_calls: true,
      tool_choice: body.tool_choice ?? "auto",
      // Function tools come back with the defaults the API fills in.
      tools: (body.tools as Json[] ?? []).map((tool) =>
        tool.type === "function" ? { description: null, strict: true, ...tool } : tool
      ),
      metadata: body.metadata ?? {},
      temperature: body.temperature ?? 1,
      top_p: body.top_p ?? 1,
      usage: withOutput ? usage : null,
    });
    const finalStatus = incomplete ? "incomplete" : "completed";
    if (!body.stream) return Response.json(response(finalStatus, true));

    const frames: string[] = [];
    let sequence = 0;
    const event = (type: string, data: Json) =>
      frames.push(
        `event: ${type}\ndata: ${
          JSON.stringify({ type, sequence_number: sequence++, ...data })
        }\n\n`,
      );
    event("response.created", { response: response("in_progress", false) });
    event("response.in_progress", { response: response("in_progress", false) });
    output.forEach((item, outputIndex) => {
      if (item.type === "reasoning") {
        event("response.output_item.added", {
          output_index: outputIndex,
          item: { ...item, summary: [] },
        });
        const at = { item_id: item.id, output_index: outputIndex, summary_index: 0 };
        event("response.reasoning_summary_part.added", {
          ...at,
          part: { type: "summary_text", text: "" },
        });
        for (const piece of pieces(item.summary[0].text, 6)) {
          event("response.reasoning_summary_text.delta", { ...at, delta: piece });
        }
        event("response.reasoning_summary_text.done", { ...at, text: item.summary[0].text });
        event("response.reasoning_summary_part.done", { ...at, part: item.summary[0] });
      } else if (item.type === "message") {
        event("response.output_item.added", {
          output_index: outputIndex,
          item: { ...item, status: "in_progress", content: [] },
        });
        const at = { item_id: item.id, output_index: outputIndex, content_index: 0 };
        event("response.content_part.added", {
          ...at,
          part: { type: "output_text", text: "", annotations: [], logprobs: [] },
        });
        for (const piece of pieces(item.content[0].text, 3)) {
          event("response.output_text.delta", { ...at, delta: piece, logprobs: [] });
        }
        event("response.output_text.done", { ...at, text: item.content[0].text, logprobs: [] });
        event("response.content_part.done", { ...at, part: item.content[0] });
      } else {
        event("response.output_item.added", {
          output_index: outputIndex,
          item: { ...item, status: "in_progress", arguments: "" },
        });
        for (const piece of pieces(item.arguments, 5)) {
          event("response.function_call_arguments.delta", {
            item_id: item.id,
            output_index: outputIndex,
            delta: piece,
          });
        }
        event("response.function_call_arguments.done", {
          item_id: item.id,
          output_index: outputIndex,
          name: item.name,
          arguments: item.arguments,
        });
      }
      event("response.output_item.done", { output_index: outputIndex, item });
    });
    event(`response.${finalStatus}`, { response: response(finalStatus, true) });
    return frameStream(frames, {
      fault: fault as StreamFault | undefined,
      // Usage only ever comes with the end (response.completed); a hostile upstream may send
      // it early on an in_progress event.
      usageFrame: (sent) =>
        `event: response.in_progress\ndata: ${
          JSON.stringify({
            type: "response.in_progress",
            sequence_number: sent,
            response: { ...response("in_progress", false), usage },
          })
        }\n\n`,
      errorFrame: (sent, message) =>
        `event: error\ndata: ${
          JSON.stringify({
            type: "error",
            sequence_number: sent,
            code: "server_error",
            message: message ?? "Simulated overload",
            param: null,
          })
        }\n\n`,
      signal: req.signal,
    });
  });
  state.baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;
  state.close = () => server.shutdown();
  return state;
}
