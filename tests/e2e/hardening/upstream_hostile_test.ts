/** A hostile or broken upstream cannot leak a key, make the gateway follow it, or fill memory. */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { postJson, serverTest } from "../../helpers/gateway.ts";
import { type ChatSetup, MODEL, setupChat } from "../../helpers/text_setup.ts";
import { readSseEvents } from "../../helpers/sse_events.ts";
import { type HostileMode, startHostileUpstream } from "../../upstream/hostile.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const UPSTREAM_KEY = "sk-upstream-test";
const ask = { model: MODEL, messages: [{ role: "user", content: "hello" }] };

/** The setup with its only channel replaced by one of `type` at `baseUrl`. */
async function withOnlyChannel(s: ChatSetup, input: { baseUrl: string; type?: string }) {
  const channels = (await s.gw.admin("GET", "/admin/channels")).body.data;
  for (const channel of channels) await s.gw.admin("DELETE", `/admin/channels/${channel.id}`);
  return await s.gw.addChannel({
    name: "hostile",
    type: input.type ?? "openai",
    base_url: input.baseUrl,
    keys: [UPSTREAM_KEY],
    models: [MODEL],
  });
}

async function lastRecord(s: ChatSetup) {
  await s.gw.settle();
  return (await s.gw.admin("GET", "/admin/requests?limit=1")).body.data[0];
}

for (const status of [301, 302, 307, 308] as const) {
  Deno.test(
    `hostile upstream: a ${status} redirect is not followed (the key never reaches the other host); 502, not charged`,
    serverTest,
    async () => {
      const s = await setupChat();
      await using hostile = startHostileUpstream({ kind: "redirect", status });
      try {
        await withOnlyChannel(s, { baseUrl: hostile.baseUrl });
        const response = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
        const body = await response.json();
        assertEquals(response.status, 502);
        assertOk(body.error.message.includes(`http_${status}`), body.error.message);
        assertEquals(hostile.seen.length, 1);
        assertEquals(hostile.elsewhere.length, 0);
        assertEquals((await lastRecord(s)).upstream_attempts[0].error_class, `http_${status}`);
        assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000);
      } finally {
        await s.close();
      }
    },
  );
}

Deno.test(
  "hostile upstream: an anthropic channel's x-api-key is not sent on to a redirect's host",
  serverTest,
  async () => {
    const s = await setupChat();
    await using hostile = startHostileUpstream({ kind: "redirect", status: 307 });
    try {
      await withOnlyChannel(s, { baseUrl: new URL(hostile.baseUrl).origin, type: "anthropic" });
      const response = await fetch(`${s.gw.url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": s.key, "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ ...ask, max_tokens: 10 }),
      });
      // An upstream failure on /v1/messages is Anthropic's 500 api_error.
      assertEquals(response.status, 500);
      const body = await response.json();
      assertEquals([body.type, body.error.type], ["error", "api_error"]);
      assertEquals(hostile.seen[0].headers.get("x-api-key"), UPSTREAM_KEY);
      assertEquals(hostile.elsewhere.length, 0);
    } finally {
      await s.close();
    }
  },
);

for (
  const [label, mode, expected] of [
    ["a 400", { kind: "quote_key", status: 400 }, 400],
    ["a 500", { kind: "quote_key", status: 500 }, 502],
  ] as Array<[string, HostileMode, number]>
) {
  Deno.test(
    `hostile upstream: ${label} whose message quotes the channel's key reaches the client and the log redacted`,
    serverTest,
    async () => {
      const s = await setupChat();
      await using hostile = startHostileUpstream(mode);
      try {
        await withOnlyChannel(s, { baseUrl: hostile.baseUrl });
        const response = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
        const text = await response.text();
        assertEquals(response.status, expected);
        assertOk(!text.includes(UPSTREAM_KEY), text);
        assertOk(text.includes("[redacted]"), text);
        const record = await lastRecord(s);
        assertOk(!JSON.stringify(record).includes(UPSTREAM_KEY));
        assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000);
      } finally {
        await s.close();
      }
    },
  );
}

Deno.test(
  "hostile upstream: a 100 MB answer is cut at the byte cap: 502 too_large, not charged",
  serverTest,
  async () => {
    const s = await setupChat();
    await using hostile = startHostileUpstream({ kind: "huge_json", bytes: 100 * 1024 * 1024 });
    try {
      await withOnlyChannel(s, { baseUrl: hostile.baseUrl });
      const response = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
      const body = await response.json();
      assertEquals(response.status, 502);
      assertOk(body.error.message.includes("too_large"), body.error.message);
      assertEquals((await lastRecord(s)).upstream_attempts[0].error_class, "too_large");
      assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000);
    } finally {
      await s.close();
    }
  },
);

/** A stream request on each interface, and what its in-stream error must name a timeout as. */
const SILENT_STREAM_ON: Array<{
  api: string;
  request(s: ChatSetup): Promise<Response>;
  assertTimeout(error: Json): void;
}> = [
  {
    api: "chat",
    request: (s) => postJson(s.gw, "/v1/chat/completions", s.key, { ...ask, stream: true }),
    assertTimeout(frame) {
      // OpenAI's envelope, the gateway's timeout code.
      assertEquals([frame.error.type, frame.error.code], ["upstream_error", "upstream_timeout"]);
    },
  },
  {
    api: "responses",
    request: (s) =>
      postJson(s.gw, "/v1/responses", s.key, { model: MODEL, input: "hello", stream: true }),
    assertTimeout(event) {
      assertEquals([event.type, event.code], ["error", "upstream_timeout"]);
    },
  },
  {
    api: "messages",
    request: (s) =>
      postJson(s.gw, "/v1/messages", null, { ...ask, max_tokens: 10, stream: true }, {
        "x-api-key": s.key,
        "anthropic-version": "2023-06-01",
      }),
    assertTimeout(event) {
      assertEquals([event.type, event.error.type], ["error", "timeout_error"]);
    },
  },
  {
    api: "generate-content",
    request: (s) =>
      postJson(
        s.gw,
        `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`,
        null,
        { contents: [{ role: "user", parts: [{ text: "hello" }] }] },
        { "x-goog-api-key": s.key },
      ),
    assertTimeout(frame) {
      assertEquals([frame.error.code, frame.error.status], [504, "DEADLINE_EXCEEDED"]);
      assertEquals(frame.error.details[0].reason, "UPSTREAM_TIMEOUT");
    },
  },
];

for (const { api, request, assertTimeout } of SILENT_STREAM_ON) {
  Deno.test(
    `hostile upstream: a stream gone silent is ended with an error event after stream_idle_ms; what came is billed (${api}: the error names a timeout)`,
    serverTest,
    async () => {
      const s = await setupChat();
      const chunk = (content: string) =>
        `data: ${
          JSON.stringify({
            id: "c1",
            object: "chat.completion.chunk",
            created: 1,
            model: "sim",
            choices: [{ index: 0, delta: { role: "assistant", content }, finish_reason: null }],
          })
        }\n\n`;
      await using hostile = startHostileUpstream({
        kind: "stream",
        events: [chunk("Hello "), chunk("there, "), chunk("partial answer")],
        thenHang: true,
      });
      try {
        const channels = (await s.gw.admin("GET", "/admin/channels")).body.data;
        for (const channel of channels) await s.gw.admin("DELETE", `/admin/channels/${channel.id}`);
        await s.gw.addChannel({
          name: "silent",
          base_url: hostile.baseUrl,
          keys: [UPSTREAM_KEY],
          models: [MODEL],
          stream_idle_ms: 300,
        });
        const response = await request(s);
        assertEquals(response.status, 200);
        const data: Json[] = (await readSseEvents(response))
          .filter((event) => event.data !== "[DONE]").map((event) => JSON.parse(event.data));
        const text = JSON.stringify(data);
        assertOk(text.includes("partial answer"), text);
        const errors = data.filter((item) => item.error || item.type === "error");
        assertEquals(errors.length, 1, text);
        assertTimeout(errors[0]);
        assertOk(JSON.stringify(errors[0]).includes("sent nothing for 300 ms"), text);
        const record = await lastRecord(s);
        assertEquals(record.outcome, "upstream_idle_timeout");
        assertEquals(record.usage_source, "estimate");
        assertOk(record.cost > 0, "what was delivered is billed");
        const balance = await s.gw.assertLedgerInvariant(s.keyId);
        assertEquals(balance, 10_000_000 - record.cost);
      } finally {
        await s.close();
      }
    },
  );
}
