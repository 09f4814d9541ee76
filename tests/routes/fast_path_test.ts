/**
 * The fast path (chat completions, embeddings) answers as the Hono routes do: each request below
 * goes once through an app with the fast path and once through one without, on the same real
 * gateway and simulated upstream; status, body, headers and the request log record must match
 * (ids and times aside).
 */

import { createApp } from "../../app.ts";
import { NO_PROXY } from "../../core/util/client_address.ts";
import { fastPath } from "../../routes/fast_path.ts";
import { chatFastRoute } from "../../routes/chat_fast_path.ts";
import { embeddingsFastRoute } from "../../routes/embeddings.ts";
import type { Gateway } from "../../core/gateway.ts";
import { setupEmbeddings, walletMatchesReceipts } from "../helpers/embedding_setup.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { MODEL, setupChat } from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

interface Case {
  name: string;
  body: string | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
  /** The authorization header; the key of the setup when absent. */
  auth?: string | null;
}

const chat = (fields: Record<string, unknown>) =>
  JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }], ...fields });

const CASES: Case[] = [
  { name: "plain", body: chat({}) },
  { name: "max_tokens and n", body: chat({ max_tokens: 20, n: 2 }) },
  { name: "stream", body: chat({ stream: true }) },
  {
    name: "stream with usage",
    body: chat({ stream: true, stream_options: { include_usage: true } }),
  },
  {
    name: "fields the gateway does not read",
    body: chat({ temperature: 0.2, seed: 3, user: "u" }),
  },
  { name: "tools", body: chat({ tools: [{ type: "function", function: { name: "f" } }] }) },
  { name: "strict fields header", body: chat({}), headers: { "x-gateway-strict-fields": "true" } },
  { name: "not JSON", body: "{model:" },
  { name: "empty body", body: "" },
  { name: "an array", body: "[1]" },
  { name: "no model", body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }) },
  { name: "empty model", body: chat({ model: "" }) },
  { name: "no messages", body: chat({ messages: [] }) },
  { name: "messages not a list", body: chat({ messages: "hi" }) },
  { name: "a message not an object", body: chat({ messages: [["user", "hi"]] }) },
  { name: "unknown role", body: chat({ messages: [{ role: "robot", content: "hi" }] }) },
  { name: "content a number", body: chat({ messages: [{ role: "user", content: 3 }] }) },
  {
    name: "content part without type",
    body: chat({ messages: [{ role: "user", content: [{}] }] }),
  },
  { name: "stream a string", body: chat({ stream: "yes" }) },
  { name: "stream_options a list", body: chat({ stream_options: [] }) },
  { name: "include_usage a string", body: chat({ stream_options: { include_usage: "y" } }) },
  { name: "max_tokens 0", body: chat({ max_tokens: 0 }) },
  { name: "max_tokens 1.5", body: chat({ max_tokens: 1.5 }) },
  { name: "max_tokens 1e20", body: chat({ max_tokens: 1e20 }) },
  { name: "max_completion_tokens -1", body: chat({ max_completion_tokens: -1 }) },
  { name: "n 129", body: chat({ n: 129 }) },
  { name: "tools not a list", body: chat({ tools: {} }) },
  { name: "a number too large", body: `{"model":"${MODEL}","messages":[],"x":1e400}` },
  { name: "nested too deep", body: `{"a":${"[".repeat(300)}${"]".repeat(300)}}` },
  { name: "not UTF-8", body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]) },
  { name: "unknown model", body: chat({ model: "no-such-model" }) },
  { name: "max_tokens past the balance", body: chat({ max_tokens: 100_000_000 }) },
  { name: "declared too large", body: chat({}), headers: { "content-length": "999999999999" } },
  { name: "no key", body: chat({}), auth: null },
  { name: "a wrong key", body: chat({}), auth: "Bearer sk-gw-wrong" },
];

const embed = (fields: Record<string, unknown>) =>
  JSON.stringify({ model: "e-openai", input: ["one", "two"], ...fields });

const EMBEDDING_CASES: Case[] = [
  { name: "floats, passed on", body: embed({ encoding_format: "float" }) },
  { name: "base64", body: embed({ encoding_format: "base64" }) },
  { name: "no encoding_format", body: embed({}) },
  { name: "one string", body: embed({ input: "one" }) },
  { name: "token arrays", body: embed({ input: [[1, 2, 3]] }) },
  { name: "dimensions", body: embed({ dimensions: 8, encoding_format: "float" }) },
  { name: "on a converting channel", body: embed({ model: "e-gemini" }) },
  { name: "dimensions refused by the model", body: embed({ model: "e-ada", dimensions: 8 }) },
  { name: "empty input", body: embed({ input: [] }) },
  { name: "input a number", body: embed({ input: 3 }) },
  { name: "bad encoding_format", body: embed({ encoding_format: "hex" }) },
  { name: "not JSON", body: "{model:" },
  { name: "no model", body: JSON.stringify({ input: "x" }) },
  { name: "unknown model", body: embed({ model: "no-such-model" }) },
  { name: "no key", body: embed({}), auth: null },
  { name: "a wrong key", body: embed({}), auth: "Bearer sk-gw-wrong" },
];

/** `value` without what differs between two runs of one request (ids, times, latency). */
function normalized(value: Json): Json {
  if (Array.isArray(value)) return value.map(normalized);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, Json> = {};
  for (const [name, field] of Object.entries(value)) {
    if (["id", "request_id", "created", "at", "latency_ms", "system_fingerprint"].includes(name)) {
      continue;
    }
    if (name === "ledger_entry_ids") continue;
    out[name] = normalized(field);
  }
  return out;
}

/** The parts of an answer that must match, its body parsed (SSE: each event's data). */
async function answerOf(response: Response) {
  const text = await response.text();
  const body = text.startsWith("data:")
    ? text.split("\n\n").filter(Boolean).map((frame) => {
      const data = frame.slice("data: ".length);
      return data === "[DONE]" ? data : normalized(JSON.parse(data));
    })
    : normalized(JSON.parse(text));
  const headers = Object.fromEntries(
    ["content-type", "x-gateway-channel", "x-gateway-ignored-fields", "retry-after"]
      .map((name) => [name, response.headers.get(name)]),
  );
  return {
    status: response.status,
    headers,
    body,
    requestId: response.headers.get("x-request-id"),
  };
}

/** Sends each case to `path` through an app with the fast path and one without; all must match. */
async function assertSameAnswers(
  gateway: Gateway,
  { url, key, path, cases }: { url: string; key: string; path: string; cases: Case[] },
) {
  const withFastPath = createApp(gateway, "unused", () => true);
  const withoutFastPath = createApp(gateway, "unused", () => true, { fastPath: false });
  const requestOf = (item: Case) => {
    const auth = item.auth === undefined ? `Bearer ${key}` : item.auth;
    return new Request(`${url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(auth ? { authorization: auth } : {}),
        ...item.headers,
      },
      body: item.body,
    });
  };
  for (const item of cases) {
    const fast = await answerOf(await withFastPath.fetch(requestOf(item)));
    const hono = await answerOf(await withoutFastPath.fetch(requestOf(item)));
    assertEquals(fast.body, hono.body, item.name);
    assertEquals({ ...fast, body: null }, { ...hono, body: null, requestId: fast.requestId });
    assertOk(fast.requestId?.startsWith("req_"), `${item.name}: x-request-id`);
    await gateway.drain();
    const [fastRecord, honoRecord] = await Promise.all(
      [fast.requestId!, hono.requestId!].map((id) => gateway.requestLog.get(id)),
    );
    assertEquals(normalized(fastRecord), normalized(honoRecord), `${item.name}: log record`);
  }
}

Deno.test(
  "chat fast path: every answer, header and log record as the Hono route gives them",
  serverTest,
  async () => {
    await using s = await setupChat();
    const gateway = s.gw.running.gateway;
    await assertSameAnswers(gateway, {
      url: s.gw.url,
      key: s.key,
      path: "/v1/chat/completions",
      cases: CASES,
    });
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);

Deno.test(
  "embeddings fast path: every answer, header and log record as the Hono route gives them",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    await assertSameAnswers(s.gw.running.gateway, {
      url: s.gw.url,
      key: s.key,
      path: "/v1/embeddings",
      cases: EMBEDDING_CASES,
    });
    await walletMatchesReceipts(s);
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);

Deno.test(
  "fast path: takes authenticated chat completions and embeddings only; the app answers the rest",
  serverTest,
  async () => {
    await using s = await setupChat();
    const served = fastPath(s.gw.running.gateway, NO_PROXY, [chatFastRoute, embeddingsFastRoute]);
    const fast = (request: Request) => served(request, undefined);
    const post = (path: string, auth: string | null, method = "POST") =>
      new Request(`${s.gw.url}${path}`, {
        method,
        headers: auth ? { authorization: auth } : {},
        body: method === "POST" ? chat({}) : undefined,
      });
    assertEquals(fast(post("/v1/responses", `Bearer ${s.key}`)), null);
    assertEquals(fast(post("/v1/embeddings/x", `Bearer ${s.key}`)), null);
    assertEquals(fast(post("/v1/embeddings", null)), null);
    assertEquals(fast(post("/v1/chat/completions", `Bearer ${s.key}`, "GET")), null);
    assertEquals(fast(post("/v1/chat/completions?x=1", `Bearer ${s.key}`)), null);
    assertEquals(fast(post("/v1/chat/completions", null)), null);
    assertEquals(await fast(post("/v1/chat/completions", "Bearer sk-gw-wrong")), null);
    const answered = await fast(post("/v1/chat/completions", `Bearer ${s.key}`));
    assertEquals(answered?.status, 200);
    await answered?.body?.cancel();
  },
);
