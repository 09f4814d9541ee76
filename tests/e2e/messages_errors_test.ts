/**
 * /v1/messages answers upstream failures with Anthropic's own statuses and types
 * (docs.anthropic.com/en/api/errors, `ErrorType` of @anthropic-ai/sdk): 529 `overloaded_error`
 * for an overloaded upstream of any kind, 500 `api_error`, 429 `rate_limit_error`, 504
 * `timeout_error`; in-stream errors carry the same type names. Driven by the SDK's 0.x and 1.x
 * lines with retries off (they retry 429, 5xx and 529), and nothing is charged.
 */

import Anthropic from "@anthropic-ai/sdk";
import Anthropic1 from "@anthropic-ai/sdk1";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import {
  BREAKER_OFF,
  CHANNEL_TYPES,
  MODEL,
  MODEL_OF,
  setupChat,
  setupText,
  type TextChannelType,
  type TextSetup,
} from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

function clients(gw: { url: string }, key: string): Anthropic[] {
  return [
    new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 }),
    new Anthropic1({ apiKey: key, baseURL: gw.url, maxRetries: 0 }) as unknown as Anthropic,
  ];
}

/** The next request to `type`'s upstream fails with `status` in that vendor's own words. */
function failNext(s: TextSetup, type: TextChannelType, status: number) {
  const fault = { kind: "status" as const, status };
  if (type === "openai") s.chat.faults.push(fault);
  if (type === "openai-responses") s.responses.faults.push(fault);
  if (type === "anthropic") s.anthropic.faults.push(fault);
  if (type === "gemini") s.gemini.faults.push(fault);
}

/** The SDK's error for a call that must fail. */
async function failure(call: Promise<unknown>): Promise<Json> {
  const error = await call.then(() => null, (e) => e);
  assertOk(error instanceof Error && "status" in error, `expected an APIError, got ${error}`);
  return error;
}

/** An error answer in Anthropic's envelope with its status, type and the request id. */
function assertAnthropicError(error: Json, status: number, type: string, label: string) {
  assertEquals(error.status, status, label);
  assertEquals(error.error?.type, "error", label);
  assertEquals(error.error?.error?.type, type, label);
  assertOk(typeof error.error?.error?.message === "string", label);
  assertOk(error.requestID, `${label}: request-id header`);
  assertEquals(error.error?.request_id, error.requestID, label);
  assertEquals(error.headers?.get("x-request-id"), error.requestID, label);
}

const ask = (model: string) => ({
  model,
  max_tokens: 64,
  messages: [{ role: "user" as const, content: "hi" }],
});

/** What an upstream status becomes on /v1/messages, whatever the upstream's kind. */
const CASES: Array<{ upstream: (type: TextChannelType) => number; status: number; type: string }> =
  [
    // Anthropic says overloaded with its own 529; the others with 503.
    { upstream: (type) => type === "anthropic" ? 529 : 503, status: 529, type: "overloaded_error" },
    { upstream: () => 500, status: 500, type: "api_error" },
    { upstream: () => 502, status: 500, type: "api_error" },
    { upstream: () => 429, status: 429, type: "rate_limit_error" },
  ];

Deno.test(
  "messages: upstream failures of every channel type are Anthropic's 529/500/429, streamed or not, no charge",
  serverTest,
  async () => {
    await using s = await setupText({ channel: BREAKER_OFF });
    for (const type of CHANNEL_TYPES) {
      for (const client of clients(s.gw, s.key)) {
        for (const expected of CASES) {
          const status = expected.upstream(type);
          const label = `${type} ${status}`;
          failNext(s, type, status);
          const plain = await failure(client.messages.create(ask(MODEL_OF[type])));
          assertAnthropicError(plain, expected.status, expected.type, label);

          // A stream that fails before its first byte is the same HTTP error.
          failNext(s, type, status);
          const streamed = await failure(
            client.messages.create({ ...ask(MODEL_OF[type]), stream: true }),
          );
          assertAnthropicError(streamed, expected.status, expected.type, `${label} (stream)`);
        }
      }
    }
    await assertNothingCharged(s, 100_000_000);
  },
);

Deno.test(
  "messages: an upstream that does not answer in time is 504 timeout_error, no charge",
  serverTest,
  async () => {
    await using s = await setupChat();
    const [channel] = (await s.gw.admin("GET", "/admin/channels")).body.data;
    const patched = await s.gw.admin("PATCH", `/admin/channels/${channel.id}`, {
      timeout_ms: 300,
    });
    assertEquals(patched.status, 200);
    s.upstream.fault = { kind: "hang" };
    for (const client of clients(s.gw, s.key)) {
      const error = await failure(client.messages.create(ask(MODEL)));
      assertAnthropicError(error, 504, "timeout_error", "hang");
    }
    s.upstream.fault = undefined;
    // The request log has the status the client got, beside the gateway's code.
    await s.gw.settle();
    const [record] = (await s.gw.admin("GET", "/admin/requests?limit=1")).body.data;
    assertEquals([record.status, record.error_code], [504, "upstream_unavailable"]);
    await assertNothingCharged(s, 10_000_000);
  },
);

Deno.test(
  "messages and count_tokens: no enabled channel is 529 overloaded_error, not to be retried",
  serverTest,
  async () => {
    await using s = await setupText();
    const channels = (await s.gw.admin("GET", "/admin/channels")).body.data as Json[];
    const anthropic = channels.find((channel) => channel.type === "anthropic");
    await s.gw.admin("PATCH", `/admin/channels/${anthropic.id}`, { enabled: false });
    for (const client of clients(s.gw, s.key)) {
      const created = await failure(client.messages.create(ask(MODEL_OF.anthropic)));
      assertAnthropicError(created, 529, "overloaded_error", "messages");
      assertEquals(created.headers.get("x-should-retry"), "false");
      const counted = await failure(client.messages.countTokens({
        model: MODEL_OF.anthropic,
        messages: [{ role: "user", content: "hi" }],
      }));
      assertAnthropicError(counted, 529, "overloaded_error", "count_tokens");
    }
    await assertNothingCharged(s, 100_000_000);
  },
);

/** The in-stream error each simulator sends, as the type the client reads. */
const IN_STREAM_TYPE: Record<TextChannelType, string> = {
  openai: "overloaded_error", // code "overloaded"
  "openai-responses": "api_error", // code "server_error"
  anthropic: "overloaded_error", // its own event, passed through
  gemini: "overloaded_error", // status UNAVAILABLE
};

Deno.test(
  "messages: in-stream errors from every channel type carry Anthropic's type names, no charge",
  serverTest,
  async () => {
    await using s = await setupText();
    for (const type of CHANNEL_TYPES) {
      for (const client of clients(s.gw, s.key)) {
        for (const kind of ["in_stream_error", "die_mid_stream"] as const) {
          if (type === "openai") s.chat.faults.push({ kind, afterChunks: 2 });
          if (type === "openai-responses") s.responses.faults.push({ kind, afterFrames: 4 });
          if (type === "anthropic") s.anthropic.faults.push({ kind, afterFrames: 4 });
          if (type === "gemini") s.gemini.faults.push({ kind, afterFrames: 1 });
          const stream = client.messages.stream(ask(MODEL_OF[type]));
          const error = await failure(stream.finalMessage());
          const expected = kind === "in_stream_error" ? IN_STREAM_TYPE[type] : "api_error";
          assertEquals(error.error?.error?.type, expected, `${type} ${kind}`);
        }
      }
    }
    await assertNothingCharged(s, 100_000_000);
  },
);
