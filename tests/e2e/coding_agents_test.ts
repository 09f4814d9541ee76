/**
 * Coding agents work unmodified (issue 15): every request that Claude Code, Codex, Gemini CLI and
 * opencode sent, recorded in tests/fixtures/agents/, replayed through each text channel type with
 * a gateway key. The simulators call the agent's tool on the tool turn and answer with text
 * after the tool result. Checked: what the upstream received (betas, flattened namespace tools,
 * dropped hosted tools, carried fields), what the agent reads back (the tool it declared, the
 * final text, usage), and that each request is held once and settled once at its price.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, startTestGateway } from "../helpers/gateway.ts";
import {
  CHANNEL_TYPES,
  MODEL_OF,
  setupText,
  type TextChannelType,
  type TextSetup,
} from "../helpers/text_setup.ts";
import {
  AGENT_CONVERSATIONS,
  type AgentConversation,
  isStreamed,
  loadRecording,
  type RecordedRequest,
  replayRecording,
  scriptToolCall,
  upstreamHistoryCallNames,
  upstreamToolName,
  upstreamToolNames,
} from "../helpers/agent_recordings.ts";
import { type ClientAnswer, interfaceOfPath, readClientAnswer } from "../helpers/client_answer.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** One replayed request, as the upstream checks see it. */
interface Turn {
  s: TextSetup;
  type: TextChannelType;
  file: string;
  recorded: RecordedRequest;
  /** The body the channel's simulator received. */
  upstream: Json;
  /** The fields the gateway named in `x-gateway-ignored-fields`. */
  ignored: string[];
}

function where(turn: Turn): string {
  return `${turn.file} on ${turn.type}`;
}

function assertIgnored(turn: Turn, pattern: RegExp, what: string): void {
  assertOk(
    turn.ignored.some((field) => pattern.test(field)),
    `${where(turn)}: ${what} named in x-gateway-ignored-fields (got "${turn.ignored.join(",")}")`,
  );
}

/** The last request the Anthropic simulator received, with its headers. */
function anthropicRecord(turn: Turn) {
  return turn.s.anthropic.requests.at(-1)!;
}

function propertyNames(schema: Json): string[] {
  return Object.keys(schema?.properties ?? {}).sort();
}

/** The channel-specific checks of what each agent's requests became upstream. */
const UPSTREAM_CHECKS: Record<string, (turn: Turn) => void> = {
  "claude-code": (turn) => {
    const { recorded, upstream, type } = turn;
    if (type === "anthropic") {
      const record = anthropicRecord(turn);
      assertEquals(record.beta, recorded.headers["anthropic-beta"], `${where(turn)}: betas`);
      assertEquals(
        record.version,
        recorded.headers["anthropic-version"],
        `${where(turn)}: version`,
      );
      assertEquals(record.search, "?beta=true", `${where(turn)}: ?beta=true`);
      const management = recorded.body.context_management;
      assertEquals(upstream.context_management, management, `${where(turn)}: context_management`);
      return;
    }
    assertIgnored(turn, /context_management/, "context_management");
    const effort = recorded.body.output_config.effort;
    const carried = type === "openai"
      ? upstream.reasoning_effort
      : type === "openai-responses"
      ? upstream.reasoning?.effort
      : effort;
    assertEquals(
      carried,
      effort,
      `${where(turn)}: output_config.effort carried as reasoning effort`,
    );
  },
  codex: (turn) => {
    const { recorded, upstream, type } = turn;
    if (type === "openai-responses") {
      assertEquals(upstream.tools, recorded.body.tools, `${where(turn)}: tools passed through`);
      const key = recorded.body.prompt_cache_key;
      assertEquals(upstream.prompt_cache_key, key, `${where(turn)}: prompt_cache_key`);
      return;
    }
    const names = upstreamToolNames(type, upstream);
    for (const tool of recorded.body.tools as Json[]) {
      if (tool.type === "function") {
        assertOk(names.includes(tool.name), `${where(turn)}: function ${tool.name} offered`);
      } else if (tool.type === "namespace") {
        for (const inner of tool.tools) {
          const flat = upstreamToolName({ namespace: tool.name, name: inner.name }, type);
          assertOk(names.includes(flat), `${where(turn)}: ${flat} offered (got ${names})`);
        }
      } else if (tool.type === "web_search") {
        assertOk(!names.includes("web_search"), `${where(turn)}: web_search dropped`);
        assertIgnored(turn, /web_search/, "the hosted web_search tool");
      } else {
        // custom (freeform apply_patch) and client-run tool_search: carried as a function or named
        const carried = names.includes(tool.name ?? tool.type);
        const named = turn.ignored.some((field) => field.includes(tool.type));
        assertOk(carried || named, `${where(turn)}: ${tool.type} tool neither carried nor named`);
      }
    }
    for (const item of recorded.body.input as Json[]) {
      if (item.type !== "function_call") continue;
      const flat = upstreamToolName(item, type);
      assertOk(
        upstreamHistoryCallNames(type, upstream).includes(flat),
        `${where(turn)}: the earlier call ${item.name} reaches upstream as ${flat}`,
      );
    }
    if (type === "openai") {
      // Chat completions cannot give back encrypted reasoning; the other channels' signatures
      // come back as encrypted_content, so there the include is honoured.
      assertIgnored(turn, /^include/, "include: reasoning.encrypted_content");
      const key = recorded.body.prompt_cache_key;
      assertEquals(upstream.prompt_cache_key, key, `${where(turn)}: prompt_cache_key carried`);
      const effort = recorded.body.reasoning.effort;
      assertEquals(upstream.reasoning_effort, effort, `${where(turn)}: reasoning effort carried`);
    } else {
      assertIgnored(turn, /prompt_cache_key/, "prompt_cache_key");
      assertOk(!turn.ignored.includes("include"), `${where(turn)}: include honoured`);
    }
  },
  "gemini-cli": (turn) => {
    const { recorded, upstream, type } = turn;
    const schema = recorded.body.generationConfig?.responseJsonSchema;
    if (!schema) return;
    const carried = {
      openai: () =>
        upstream.response_format?.type === "json_schema" &&
        propertyNames(upstream.response_format.json_schema?.schema),
      "openai-responses": () =>
        upstream.text?.format?.type === "json_schema" && propertyNames(upstream.text.format.schema),
      anthropic: () =>
        upstream.output_config?.format?.type === "json_schema" &&
        propertyNames(upstream.output_config.format.schema),
      gemini: () => propertyNames(upstream.generationConfig?.responseJsonSchema),
    }[type]();
    assertEquals(carried, propertyNames(schema), `${where(turn)}: structured output carried`);
  },
  "opencode-anthropic": (turn) => {
    const beta = turn.recorded.headers["anthropic-beta"];
    if (turn.type === "anthropic" && beta) {
      assertEquals(anthropicRecord(turn).beta, beta, `${where(turn)}: betas`);
    }
  },
  "opencode-compatible": () => {},
};

/** The price of a usage at TEST_TEXT_PRICE: 1 unit an input token, 0.5 cached, 2 an output. */
function priceOf(usage: ClientAnswer["usage"]): number {
  return Math.ceil((usage.input - usage.cached) + usage.cached * 0.5 + usage.output * 2);
}

async function replayConversation(conversation: AgentConversation, type: TextChannelType) {
  await using s = await setupText();
  scriptToolCall(s, conversation.call);
  const opening = await s.gw.balance(s.keyId);
  let charged = 0;
  for (const [index, { file, expect }] of conversation.turns.entries()) {
    const recorded = await loadRecording(conversation.folder, file);
    const sent = s.count(type);
    const response = await replayRecording(s.gw, recorded, { key: s.key, model: MODEL_OF[type] });
    const body = await response.text();
    assertEquals(response.status, 200, `${file} on ${type}: ${body.slice(0, 400)}`);
    assertEquals(s.count(type), sent + 1, `${file} on ${type}: one upstream request`);
    const upstream = s.lastBody(type);
    const ignored = (response.headers.get("x-gateway-ignored-fields") ?? "").split(",")
      .map((field) => field.trim()).filter(Boolean);
    const turn = { s, type, file, recorded, upstream, ignored };
    UPSTREAM_CHECKS[conversation.folder](turn);

    const answer = readClientAnswer(interfaceOfPath(recorded.path), body, {
      streamed: isStreamed(recorded),
    });
    if (expect === "tool_call") {
      const offered = upstreamToolNames(type, upstream);
      const name = upstreamToolName(conversation.call, type);
      assertOk(offered.includes(name), `${where(turn)}: ${name} offered (got ${offered})`);
      assertEquals(answer.calls[0], conversation.call, `${where(turn)}: the declared tool`);
    } else {
      assertEquals(answer.calls, [], `${where(turn)}: no tool call`);
      assertOk(answer.text.length > 0, `${where(turn)}: final text`);
    }
    assertOk(answer.usage.input > 0 && answer.usage.output > 0, `${where(turn)}: usage`);

    await s.gw.settle();
    const entries = (await s.gw.ledger(s.keyId)).filter((entry) => entry.type !== "credit");
    const settles = entries.filter((entry) => entry.type === "charge");
    assertEquals(settles.length, index + 1, `${where(turn)}: charged once`);
    assertEquals(settles.at(-1)!.requests, 1, `${where(turn)}: one request in the charge`);
    assertEquals(settles.at(-1)!.cost, priceOf(answer.usage), `${where(turn)}: cost as priced`);
    charged += priceOf(answer.usage);
  }
  const entries = (await s.gw.ledger(s.keyId)).filter((entry) => entry.type !== "credit");
  // Each turn (drained before the next) leased, was charged once and returned its lease.
  const moves = entries.map((entry) => `${entry.type} ${entry.ref}`).sort();
  const expected = [...new Set(entries.map((entry) => entry.ref))]
    .flatMap((ref) => [`charge ${ref}`, `lease ${ref}`, `lease_return ${ref}`]).sort();
  assertEquals(moves, expected, "each request charged once, each lease returned once");
  assertEquals(await s.gw.assertLedgerInvariant(s.keyId), opening - charged, "balance");
}

for (const conversation of AGENT_CONVERSATIONS) {
  for (const type of CHANNEL_TYPES) {
    Deno.test(
      `${conversation.agent} through channel type ${type}: tool call, final text, usage, billed once`,
      serverTest,
      () => replayConversation(conversation, type),
    );
  }
}

Deno.test("Claude Code 2.1.197's HEAD / probe and GET / answer 200", serverTest, async () => {
  await using gw = await startTestGateway();
  const probe = await loadRecording("claude-code", "0-probe.json");
  const head = await replayRecording(gw, probe, { key: "" });
  await head.body?.cancel();
  assertEquals(head.status, 200, "HEAD /");
  const root = await fetch(`${gw.url}/`);
  const text = await root.text();
  assertEquals(root.status, 200, `GET /: ${text}`);
  assertEquals(typeof JSON.parse(text).name, "string", "GET / names the service");
});

Deno.test("tests/fixtures/agents: recordings keep only the allowed headers and no secret", async () => {
  const allowed =
    /^(content-type|anthropic-beta|anthropic-version|openai-beta|user-agent|x-stainless-.*)$/;
  const folders = new Set(AGENT_CONVERSATIONS.map((conversation) => conversation.folder));
  for (const folder of folders) {
    const files = [...Deno.readDirSync(new URL(`../fixtures/agents/${folder}/`, import.meta.url))];
    for (const { name } of files) {
      const recorded = await loadRecording(folder, name);
      for (const header of Object.keys(recorded.headers)) {
        assertOk(allowed.test(header), `${folder}/${name}: header ${header}`);
      }
      const text = JSON.stringify(recorded);
      assertOk(
        !/\bsk-[A-Za-z0-9-]{8,}|\/tmp\/(run|home)-/.test(text),
        `${folder}/${name}`,
      );
    }
  }
});
