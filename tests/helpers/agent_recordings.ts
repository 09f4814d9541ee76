/**
 * The requests real coding agents sent, recorded once into `tests/fixtures/agents/` (how: that
 * folder's README), and how to replay them through a test gateway with a gateway key.
 */

import type { TestGateway } from "./gateway.ts";
import { type ClientToolCall, interfaceOfPath, type TextInterface } from "./client_answer.ts";
import type { TextChannelType, TextSetup } from "./text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** One recorded request: what the agent sent, secrets and machine details replaced. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: Json;
}

/** One agent's recorded conversation: its requests in the order sent. */
export interface AgentConversation {
  /** The agent and the version recorded, as the test names say it. */
  agent: string;
  /** The folder under tests/fixtures/agents/. */
  folder: string;
  /** Each request's file and what the agent waits for in its answer. */
  turns: Array<{ file: string; expect: "tool_call" | "text" }>;
  /** The tool the simulators call on the tool turn, as the agent declared it. */
  call: ClientToolCall;
}

export const AGENT_CONVERSATIONS: AgentConversation[] = [
  {
    agent: "Claude Code 2.1.197",
    folder: "claude-code",
    turns: [
      { file: "1-first-turn.json", expect: "tool_call" },
      { file: "2-tool-result.json", expect: "text" },
    ],
    call: { name: "Write" },
  },
  {
    agent: "Claude Code 2.1.197 --bare",
    folder: "claude-code",
    turns: [
      { file: "3-bare-first-turn.json", expect: "tool_call" },
      { file: "4-bare-tool-result.json", expect: "text" },
    ],
    call: { name: "Bash" },
  },
  {
    agent: "Codex 0.169.0",
    folder: "codex",
    turns: [
      { file: "1-first-turn.json", expect: "tool_call" },
      { file: "2-tool-result.json", expect: "text" },
    ],
    call: { name: "exec_command" },
  },
  {
    agent: "Codex 0.169.0 with multi_agent_v2",
    folder: "codex",
    turns: [
      { file: "3-multi-agent-first-turn.json", expect: "tool_call" },
      { file: "4-multi-agent-tool-result.json", expect: "text" },
    ],
    call: { namespace: "collaboration", name: "list_agents" },
  },
  {
    agent: "Gemini CLI 0.61.0",
    folder: "gemini-cli",
    turns: [
      { file: "1-router.json", expect: "text" },
      { file: "2-first-turn.json", expect: "tool_call" },
      { file: "3-tool-result.json", expect: "text" },
    ],
    call: { name: "write_file" },
  },
  {
    agent: "opencode 1.18.33 (@ai-sdk/openai-compatible)",
    folder: "opencode-compatible",
    turns: [
      { file: "1-title.json", expect: "text" },
      { file: "2-first-turn.json", expect: "tool_call" },
      { file: "3-tool-result.json", expect: "text" },
    ],
    call: { name: "bash" },
  },
  {
    agent: "opencode 1.18.33 (anthropic provider)",
    folder: "opencode-anthropic",
    turns: [
      { file: "1-title.json", expect: "text" },
      { file: "2-first-turn.json", expect: "tool_call" },
      { file: "3-tool-result.json", expect: "text" },
    ],
    call: { name: "write" },
  },
];

const FIXTURES = new URL("../fixtures/agents/", import.meta.url);

/** Reads one recorded request. */
export async function loadRecording(folder: string, file: string): Promise<RecordedRequest> {
  return JSON.parse(await Deno.readTextFile(new URL(`${folder}/${file}`, FIXTURES)));
}

/** Whether the agent asked for a stream. */
export function isStreamed(recorded: RecordedRequest): boolean {
  return recorded.body?.stream === true || recorded.path.endsWith(":streamGenerateContent");
}

/** The key header each interface's agents send (the recordings keep none). */
function credential(textInterface: TextInterface, key: string): Record<string, string> {
  if (textInterface === "messages") return { "x-api-key": key };
  if (textInterface === "generate-content") return { "x-goog-api-key": key };
  return { authorization: `Bearer ${key}` };
}

/**
 * Sends a recorded request to the gateway as the agent did, with `key` in the agent's key header
 * and `model` in place of the recorded model (in the body, or in the path for generate-content).
 */
export function replayRecording(
  gw: TestGateway,
  recorded: RecordedRequest,
  options: { key: string; model?: string },
): Promise<Response> {
  const path = options.model
    ? recorded.path.replace(/\/models\/[^/:]+:/, `/models/${options.model}:`)
    : recorded.path;
  const query = new URLSearchParams(recorded.query).toString();
  const body = recorded.body && options.model && "model" in recorded.body
    ? { ...recorded.body, model: options.model }
    : recorded.body;
  const headers = recorded.method === "POST"
    ? { ...recorded.headers, ...credential(interfaceOfPath(path), options.key) }
    : recorded.headers;
  return fetch(`${gw.url}${path}${query ? `?${query}` : ""}`, {
    method: recorded.method,
    headers,
    body: body === null || body === undefined ? undefined : JSON.stringify(body),
  });
}

/** How a channel type's upstream names a tool the client declared. */
export function upstreamToolName(call: ClientToolCall, type: TextChannelType): string {
  if (!call.namespace) return call.name;
  // The responses simulator names a namespaced function `<namespace>.<name>`; other channels
  // get the gateway's flattened function name.
  return type === "openai-responses"
    ? `${call.namespace}.${call.name}`
    : `${call.namespace}__${call.name}`;
}

/** Makes every simulator of `s` call `call` (under its name on that channel) when it calls a tool. */
export function scriptToolCall(s: TextSetup, call: ClientToolCall): void {
  s.chat.options.callTools = [upstreamToolName(call, "openai")];
  s.responses.options.callTools = [upstreamToolName(call, "openai-responses")];
  s.anthropic.options.callTools = [upstreamToolName(call, "anthropic")];
  s.gemini.options.callTools = [upstreamToolName(call, "gemini")];
}

/** The names of the function tools an upstream request offers, in its channel's format. */
export function upstreamToolNames(type: TextChannelType, body: Json): string[] {
  const tools: Json[] = body.tools ?? [];
  switch (type) {
    case "openai":
      return tools.filter((tool) => tool.type === "function").map((tool) => tool.function.name);
    case "openai-responses":
      return tools.flatMap((tool) =>
        tool.type === "namespace"
          ? (tool.tools ?? []).map((inner: Json) => `${tool.name}.${inner.name}`)
          : tool.name
          ? [tool.name]
          : []
      );
    case "anthropic":
      return tools.filter((tool) => !tool.type || tool.type === "custom").map((tool) => tool.name);
    case "gemini":
      return tools.flatMap((tool) => (tool.functionDeclarations ?? []).map((d: Json) => d.name));
  }
}

/** The names of the tool calls in the conversation history of an upstream request. */
export function upstreamHistoryCallNames(type: TextChannelType, body: Json): string[] {
  switch (type) {
    case "openai":
      return (body.messages ?? []).flatMap((message: Json) =>
        (message.tool_calls ?? []).map((call: Json) => call.function.name)
      );
    case "openai-responses":
      return (body.input ?? []).filter((item: Json) => item.type === "function_call")
        .map((item: Json) => item.namespace ? `${item.namespace}.${item.name}` : item.name);
    case "anthropic":
      return (body.messages ?? []).flatMap((message: Json) =>
        Array.isArray(message.content)
          ? message.content.filter((block: Json) => block.type === "tool_use")
            .map((block: Json) => block.name)
          : []
      );
    case "gemini":
      return (body.contents ?? []).flatMap((content: Json) =>
        (content.parts ?? []).filter((part: Json) => part.functionCall)
          .map((part: Json) => part.functionCall.name)
      );
  }
}
