/**
 * The provider seam (core/providers/provider.ts): a provider whose request is built
 * asynchronously (it fetches a token from a tiny local token server and signs the call with it)
 * and whose stream is not SSE but JSON lines, given to the gateway through its own
 * `decodeStream`. It is put in the provider table's `openai` row for the test, and served end to
 * end by the real gateway: relayed to a chat client, converted for a messages client, with the
 * event size cap and the channel key's redaction still applying to its framing.
 */

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { serverTest, startTestGateway, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import { PROVIDERS } from "../../core/providers/provider_table.ts";
import type { Provider } from "../../core/providers/provider.ts";
import {
  framedEvents,
  type StreamFraming,
  type UpstreamEvent,
} from "../../core/upstream/upstream_events.ts";

const CHANNEL_KEY = "sk-json-lines-channel-key";
const TOKEN = "tok-signed-42";
const BALANCE = 10_000_000;

/** One event a line: each non-empty line of the body is one chunk's JSON. */
class JsonLinesFraming implements StreamFraming {
  #decoder = new TextDecoder();
  #line = "";

  feed(chunk: Uint8Array, emit: (event: UpstreamEvent) => void): void {
    const lines = (this.#line + this.#decoder.decode(chunk, { stream: true })).split("\n");
    this.#line = lines.pop()!;
    for (const line of lines) if (line.trim()) emit({ data: line.trim() });
  }

  end(emit: (event: UpstreamEvent) => void): void {
    const line = (this.#line + this.#decoder.decode()).trim();
    this.#line = "";
    if (line) emit({ data: line });
  }

  reset(): void {
    this.#line = "";
  }
}

/** A chat-completions upstream that takes a signed token and streams JSON lines. */
function jsonLinesProvider(tokenUrl: string): Provider {
  return {
    ...PROVIDERS.openai,
    text: {
      format: "openai-chat",
      async request({ channel, apiKey }, { stream, body }) {
        const token = await fetch(tokenUrl, { method: "POST", body: apiKey });
        if (!token.ok) throw new Error(`The token server refused ${apiKey}`);
        const { token: signed } = await token.json();
        return {
          url: `${channel.base_url}/chat/completions`,
          init: {
            method: "POST",
            headers: {
              authorization: `Signed ${signed}`,
              "content-type": "application/json",
              accept: stream ? "application/x-ndjson" : "application/json",
            },
            body,
          },
        };
      },
      decodeStream: (response, options) =>
        framedEvents(response.body!, new JsonLinesFraming(), options),
    },
  };
}

function chunk(fields: Record<string, unknown>): string {
  return JSON.stringify({ id: "c1", object: "chat.completion.chunk", model: "up", ...fields });
}

const STREAM = [
  chunk({ choices: [{ index: 0, delta: { role: "assistant", content: "Hel" } }] }),
  chunk({ choices: [{ index: 0, delta: { content: "lo" } }] }),
  chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
  chunk({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } }),
];

/** What the upstream sends next, and what it was sent. */
interface Upstream {
  lines: string[];
  /** Whether the token server refuses. */
  tokenRefused?: boolean;
  authorizations: string[];
  tokenCalls: string[];
}

/** The token server and the JSON-lines upstream, on ephemeral ports. */
function startServers(upstream: Upstream) {
  const tokens = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (request) => {
    upstream.tokenCalls.push(await request.text());
    if (upstream.tokenRefused) return new Response("no", { status: 503 });
    return Response.json({ token: TOKEN });
  });
  const model = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (request) => {
    upstream.authorizations.push(request.headers.get("authorization") ?? "");
    const body = await request.json();
    if (request.headers.get("authorization") !== `Signed ${TOKEN}`) {
      return Response.json({ error: { message: "unsigned" } }, { status: 401 });
    }
    if (!body.stream) {
      return Response.json({
        id: "c1",
        object: "chat.completion",
        model: "up",
        choices: [{
          index: 0,
          message: { role: "assistant", content: "Hello" },
          finish_reason: "stop",
        }],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      });
    }
    const lines = upstream.lines.map((line) => `${line}\n`);
    return new Response(
      new ReadableStream({
        pull(controller) {
          const line = lines.shift();
          if (line === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(line));
        },
      }),
      { headers: { "content-type": "application/x-ndjson" } },
    );
  });
  return {
    tokenUrl: `http://127.0.0.1:${tokens.addr.port}/token`,
    baseUrl: `http://127.0.0.1:${model.addr.port}/v1`,
    async [Symbol.asyncDispose]() {
      await tokens.shutdown();
      await model.shutdown();
    },
  };
}

/** A gateway whose `openai` row is the JSON-lines provider, with one model on it. */
async function setup(env: Record<string, string> = {}) {
  const upstream: Upstream = { lines: [...STREAM], authorizations: [], tokenCalls: [] };
  const stack = new AsyncDisposableStack();
  const servers = stack.use(startServers(upstream));
  const original = PROVIDERS.openai;
  PROVIDERS.openai = jsonLinesProvider(servers.tokenUrl);
  stack.defer(() => {
    PROVIDERS.openai = original;
  });
  const gw = stack.use(await startTestGateway(env));
  await gw.putModel("m-lines", { kind: "text", price: TEST_TEXT_PRICE });
  await gw.addChannel({
    name: "lines",
    base_url: servers.baseUrl,
    keys: [CHANNEL_KEY],
    models: ["m-lines"],
  });
  const { id, key } = await gw.createKey({ balance: BALANCE });
  return {
    gw,
    keyId: id,
    key,
    upstream,
    [Symbol.asyncDispose]: () => stack.disposeAsync(),
  };
}

const ASK = [{ role: "user" as const, content: "hi" }];

Deno.test(
  "a provider that signs asynchronously and streams JSON lines is served end to end",
  serverTest,
  async () => {
    await using s = await setup();
    const openai = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });

    const whole = await openai.chat.completions.create({ model: "m-lines", messages: ASK });
    assertEquals(whole.choices[0].message.content, "Hello");

    const streamed = await openai.chat.completions.create({
      model: "m-lines",
      messages: ASK,
      stream: true,
    });
    let text = "";
    for await (const part of streamed) text += part.choices[0]?.delta.content ?? "";
    assertEquals(text, "Hello");

    s.upstream.lines = [...STREAM];
    const anthropic = new Anthropic({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 });
    const message = await anthropic.messages.stream({
      model: "m-lines",
      max_tokens: 16,
      messages: ASK,
    }).finalMessage();
    assertEquals(message.content, [{ type: "text", text: "Hello" }]);
    assertEquals(message.usage.output_tokens, 2);

    // Each call asked for a token with the channel's key and was sent signed with it.
    assertEquals(s.upstream.tokenCalls, [CHANNEL_KEY, CHANNEL_KEY, CHANNEL_KEY]);
    assertEquals(s.upstream.authorizations, Array(3).fill(`Signed ${TOKEN}`));
    // Three answers of 5 input and 2 output tokens, at 1 and 2 units a token.
    await s.gw.settle();
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), BALANCE - 3 * (5 + 2 * 2));
  },
);

Deno.test(
  "a provider's own framing keeps the event size cap and the channel key's redaction",
  serverTest,
  async () => {
    const cap = 64 * 1024;
    await using s = await setup({ GATEWAY_UPSTREAM_EVENT_MAX_MB: String(cap / (1024 * 1024)) });
    const send = (stream: boolean) =>
      fetch(`${s.gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m-lines", messages: ASK, stream }),
      });

    s.upstream.lines = [STREAM[0], chunk({ padding: "x".repeat(3 * cap), choices: [] })];
    const oversized = await (await send(true)).text();
    assertOk(oversized.includes("upstream_stream_interrupted"), oversized.slice(-300));
    assertOk(oversized.length < cap, `${oversized.length} characters reached the client`);

    s.upstream.lines = [
      STREAM[0],
      JSON.stringify({ error: { message: `key ${CHANNEL_KEY} is over quota` } }),
    ];
    const redacted = await (await send(true)).text();
    assertOk(!redacted.includes(CHANNEL_KEY), redacted);
    assertOk(redacted.includes("is over quota"), redacted);

    await s.gw.settle();
    await assertNothingCharged(s, BALANCE);
  },
);

Deno.test(
  "a provider whose request cannot be built fails the attempt in the gateway's words; no charge",
  serverTest,
  async () => {
    await using s = await setup();
    s.upstream.tokenRefused = true;
    const response = await fetch(`${s.gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "m-lines", messages: ASK }),
    });
    const text = await response.text();
    assertEquals(response.status, 502, text);
    assertOk(text.includes("could not be built"), text);
    assertOk(!text.includes(CHANNEL_KEY), text);
    assertEquals(s.upstream.authorizations, []);
    await s.gw.settle();
    const records = (await s.gw.admin("GET", "/admin/requests?limit=1")).body.data;
    assertEquals(records[0].upstream_attempts[0].error_class, "network");
    await assertNothingCharged(s, BALANCE);
  },
);
