/**
 * Reads a text answer as a client of each interface sees it, streamed or not, into the tool calls,
 * the text and the usage it carries; for tests that send raw requests (recorded agent turns).
 */

// deno-lint-ignore no-explicit-any
type Json = any;

export type TextInterface = "chat" | "responses" | "messages" | "generate-content";

export interface ClientToolCall {
  name: string;
  /** The Responses `namespace` a call names, when it names one. */
  namespace?: string;
}

export interface ClientAnswer {
  calls: ClientToolCall[];
  text: string;
  /** Tokens as the client's format reports them: input includes cached input. */
  usage: { input: number; cached: number; output: number };
}

/** The interface a client path belongs to. */
export function interfaceOfPath(path: string): TextInterface {
  if (path.startsWith("/v1/messages")) return "messages";
  if (path === "/v1/responses") return "responses";
  if (path === "/v1/chat/completions") return "chat";
  if (/\/models\/[^/]+:\w+$/.test(path)) return "generate-content";
  throw new Error(`No text interface has the path ${path}`);
}

/** Every `data:` payload of an SSE body, parsed; `[DONE]` left out. */
function sseData(text: string): Json[] {
  return text.split(/\r?\n\r?\n/).flatMap((frame) => {
    const data = frame.split(/\r?\n/).filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart()).join("\n");
    return data && data !== "[DONE]" ? [JSON.parse(data)] : [];
  });
}

function readChat(body: string, streamed: boolean): ClientAnswer {
  if (!streamed) {
    const answer = JSON.parse(body);
    const message = answer.choices[0].message;
    return {
      calls: (message.tool_calls ?? []).map((call: Json) => ({ name: call.function.name })),
      text: message.content ?? "",
      usage: chatUsage(answer.usage),
    };
  }
  const chunks = sseData(body);
  const calls: ClientToolCall[] = [];
  let text = "";
  for (const chunk of chunks) {
    const delta = chunk.choices?.[0]?.delta ?? {};
    text += delta.content ?? "";
    for (const call of delta.tool_calls ?? []) {
      if (call.function?.name) calls.push({ name: call.function.name });
    }
  }
  return { calls, text, usage: chatUsage(chunks.findLast((chunk) => chunk.usage)?.usage) };
}

function chatUsage(usage: Json): ClientAnswer["usage"] {
  return {
    input: usage?.prompt_tokens ?? 0,
    cached: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    output: usage?.completion_tokens ?? 0,
  };
}

function readResponses(body: string, streamed: boolean): ClientAnswer {
  const response = streamed
    ? sseData(body).find((event) => event.type === "response.completed")?.response
    : JSON.parse(body);
  if (!response) throw new Error(`A Responses stream without response.completed: ${body}`);
  const calls = response.output.filter((item: Json) => item.type === "function_call")
    .map((item: Json) => ({
      name: item.name,
      ...(item.namespace ? { namespace: item.namespace } : {}),
    }));
  const text = response.output.filter((item: Json) => item.type === "message")
    .flatMap((item: Json) => item.content).map((part: Json) => part.text ?? "").join("");
  return {
    calls,
    text,
    usage: {
      input: response.usage?.input_tokens ?? 0,
      cached: response.usage?.input_tokens_details?.cached_tokens ?? 0,
      output: response.usage?.output_tokens ?? 0,
    },
  };
}

function readMessages(body: string, streamed: boolean): ClientAnswer {
  if (!streamed) {
    const message = JSON.parse(body);
    return {
      calls: message.content.filter((block: Json) => block.type === "tool_use")
        .map((block: Json) => ({ name: block.name })),
      text: message.content.filter((block: Json) => block.type === "text")
        .map((block: Json) => block.text).join(""),
      usage: messagesUsage(message.usage),
    };
  }
  const calls: ClientToolCall[] = [];
  let text = "";
  let usage: Json = {};
  for (const event of sseData(body)) {
    if (event.type === "message_start") usage = { ...event.message.usage };
    if (event.type === "message_delta") usage = { ...usage, ...event.usage };
    if (event.type === "content_block_start" && event.content_block.type === "tool_use") {
      calls.push({ name: event.content_block.name });
    }
    if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
      text += event.delta.text;
    }
  }
  return { calls, text, usage: messagesUsage(usage) };
}

function messagesUsage(usage: Json): ClientAnswer["usage"] {
  const cached = usage?.cache_read_input_tokens ?? 0;
  return {
    input: (usage?.input_tokens ?? 0) + cached + (usage?.cache_creation_input_tokens ?? 0),
    cached,
    output: usage?.output_tokens ?? 0,
  };
}

function readGenerateContent(body: string, streamed: boolean): ClientAnswer {
  const answers = streamed ? sseData(body) : [JSON.parse(body)];
  const parts = answers.flatMap((answer) => answer.candidates?.[0]?.content?.parts ?? []);
  const usage = answers.findLast((answer) => answer.usageMetadata)?.usageMetadata ?? {};
  return {
    calls: parts.filter((part: Json) => part.functionCall)
      .map((part: Json) => ({ name: part.functionCall.name })),
    text: parts.filter((part: Json) => part.text && !part.thought)
      .map((part: Json) => part.text).join(""),
    usage: {
      input: usage.promptTokenCount ?? 0,
      cached: usage.cachedContentTokenCount ?? 0,
      output: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
    },
  };
}

const READERS: Record<TextInterface, (body: string, streamed: boolean) => ClientAnswer> = {
  chat: readChat,
  responses: readResponses,
  messages: readMessages,
  "generate-content": readGenerateContent,
};

/** Reads the body of a 200 answer on `textInterface`; `streamed` when it is an SSE stream. */
export function readClientAnswer(
  textInterface: TextInterface,
  body: string,
  options: { streamed: boolean },
): ClientAnswer {
  return READERS[textInterface](body, options.streamed);
}
