import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { MODEL, setupChat } from "../helpers/text_setup.ts";
import { startOpenAIChatUpstream, startResettingServer } from "../upstream/openai_chat.ts";
import OpenAI from "openai";

const ask = { model: MODEL, messages: [{ role: "user" as const, content: "fail over" }] };

/** Adds a second channel (preferred: priority 1) in front of the setup's primary one. */
async function addPreferred(s: Awaited<ReturnType<typeof setupChat>>, baseUrl: string, extra = {}) {
  return await s.gw.addChannel({
    name: "preferred",
    base_url: baseUrl,
    models: [MODEL],
    priority: 1,
    ...extra,
  });
}

for (
  const [label, fault] of [
    ["500", { kind: "status", status: 500 }],
    ["429", { kind: "status", status: 429, retryAfter: "1" }],
    ["401 on the channel's own key", { kind: "status", status: 401 }],
    ["malformed JSON", { kind: "malformed" }],
  ] as const
) {
  Deno.test(
    `failover: upstream ${label} moves the request to the next channel`,
    serverTest,
    async () => {
      await using s = await setupChat();
      await using bad = startOpenAIChatUpstream();
      bad.fault = fault;
      await addPreferred(s, bad.baseUrl);
      const answer = await s.client.chat.completions.create(ask);
      assertEquals(answer.choices[0].message.content, "Echo: fail over");
      assertEquals(bad.requests.length, 1);
      assertEquals(s.upstream.requests.length, 1);
      await s.gw.assertLedgerInvariant(s.keyId);
    },
  );
}

Deno.test(
  "failover: a connection reset moves the request to the next channel",
  serverTest,
  async () => {
    await using s = await setupChat();
    await using reset = startResettingServer();
    await addPreferred(s, reset.baseUrl);
    const answer = await s.client.chat.completions.create(ask);
    assertEquals(answer.choices[0].message.content, "Echo: fail over");
    assertEquals(reset.connections >= 1, true);
  },
);

Deno.test("failover: a channel that times out is left for the next one", serverTest, async () => {
  await using s = await setupChat();
  await using slow = startOpenAIChatUpstream();
  slow.fault = { kind: "hang" };
  await addPreferred(s, slow.baseUrl, { timeout_ms: 300 });
  const answer = await s.client.chat.completions.create(ask);
  assertEquals(answer.choices[0].message.content, "Echo: fail over");
});

Deno.test(
  "failover: a stream that dies before its first event is retried elsewhere",
  serverTest,
  async () => {
    await using s = await setupChat();
    await using bad = startOpenAIChatUpstream();
    bad.fault = { kind: "die_mid_stream", afterChunks: 0 };
    await addPreferred(s, bad.baseUrl);
    const final = await s.client.chat.completions.stream(ask).finalChatCompletion();
    assertEquals(final.choices[0].message.content, "Echo: fail over");
    assertEquals(bad.requests.length, 1);
  },
);

Deno.test(
  "failover: at most 1 + max_retries channels, never one twice; then 502 and no charge",
  serverTest,
  async () => {
    await using s = await setupChat();
    s.upstream.fault = { kind: "status", status: 503 };
    await using upstreams = new AsyncDisposableStack();
    const extra = [1, 2, 3].map(() => upstreams.use(startOpenAIChatUpstream()));
    for (const [index, upstream] of extra.entries()) {
      upstream.fault = { kind: "status", status: 500 };
      await addPreferred(s, upstream.baseUrl, { priority: 10 - index });
    }
    const error = await s.client.chat.completions.create(ask).catch((e) => e);
    assertOk(error instanceof OpenAI.APIError);
    assertEquals(error.status, 502);
    assertEquals((error.error as { code: string }).code, "upstream_unavailable");
    const counts = [...extra, s.upstream].map((upstream) => upstream.requests.length);
    assertEquals(counts, [1, 1, 1, 0]);
    await assertNothingCharged(s, 10_000_000);
    const types = (await s.gw.ledger(s.keyId)).map((entry) => entry.type);
    assertEquals(types, ["credit", "lease", "lease_return"]);
  },
);

Deno.test(
  "failover: every channel rate limited gives 429 with the upstream's retry-after",
  serverTest,
  async () => {
    await using s = await setupChat();
    s.upstream.fault = { kind: "status", status: 429, retryAfter: "7" };
    const response = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    assertEquals(response.status, 429);
    assertEquals(response.headers.get("retry-after"), "7");
    assertEquals((await response.json()).error.code, "upstream_rate_limited");
    await assertNothingCharged(s, 10_000_000);
  },
);

Deno.test(
  "failover: an upstream 400 is the request's fault: no other channel, no charge",
  serverTest,
  async () => {
    await using s = await setupChat();
    await using bad = startOpenAIChatUpstream();
    bad.fault = { kind: "status", status: 400, message: "max_tokens is too large" };
    await addPreferred(s, bad.baseUrl);
    const error = await s.client.chat.completions.create(ask).catch((e) => e);
    assertEquals(error.status, 400);
    assertOk(String(error.message).includes("max_tokens is too large"));
    assertEquals(s.upstream.requests.length, 0);
    await assertNothingCharged(s, 10_000_000);
  },
);

Deno.test(
  "stream: upstream dying mid-stream ends with an error event and costs nothing",
  serverTest,
  async () => {
    await using s = await setupChat();
    s.upstream.fault = { kind: "die_mid_stream", afterChunks: 3 };
    const stream = await s.client.chat.completions.create({ ...ask, stream: true });
    let text = "";
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    })().catch((e) => e);
    assertOk(error instanceof OpenAI.APIError, `expected an APIError, got ${error}`);
    assertOk(String(error.message).includes("upstream"));
    assertOk(text.length > 0);
    await assertNothingCharged(s, 10_000_000);
    const requests = (await s.gw.admin("GET", "/admin/requests")).body.data;
    assertEquals(requests.at(-1).outcome, "upstream_error");
  },
);

Deno.test(
  "stream: an upstream error event mid-stream reaches the client once and costs nothing",
  serverTest,
  async () => {
    await using s = await setupChat();
    s.upstream.fault = { kind: "in_stream_error", afterChunks: 2 };
    const response = await postJson(s.gw, "/v1/chat/completions", s.key, { ...ask, stream: true });
    const body = await response.text();
    assertEquals(body.match(/"error"/g)?.length, 1);
    assertOk(body.includes("Simulated overload"));
    await assertNothingCharged(s, 10_000_000);
  },
);

Deno.test(
  "stream: a client that disconnects aborts the upstream and pays for what was produced",
  serverTest,
  async () => {
    await using s = await setupChat({ upstream: { chunkDelayMs: 20, chunkSize: 2 } });
    const controller = new AbortController();
    const response = await postJson(
      s.gw,
      "/v1/chat/completions",
      s.key,
      {
        model: MODEL,
        stream: true,
        messages: [{ role: "user", content: "a long answer ".repeat(20) }],
      },
      {},
      { signal: controller.signal },
    );
    const reader = response.body!.getReader();
    await reader.read();
    await reader.read();
    await reader.read();
    controller.abort();
    await reader.cancel().catch(() => {});
    for (let i = 0; i < 100 && s.upstream.cancelledStreams === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertEquals(s.upstream.cancelledStreams, 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const balance = await s.gw.assertLedgerInvariant(s.keyId);
    const settle = (await s.gw.ledger(s.keyId)).find((entry) => entry.type === "charge")!;
    assertOk(settle.cost! > 0, "a disconnect after output must be billed");
    assertEquals(balance, 10_000_000 - settle.cost!);
    const requests = (await s.gw.admin("GET", "/admin/requests")).body.data;
    assertEquals(requests.at(-1).outcome, "client_disconnect");
    assertEquals(requests.at(-1).usage_source, "estimate");
  },
);

Deno.test(
  "non-stream answer without usage is billed by the documented estimate",
  serverTest,
  async () => {
    await using s = await setupChat();
    s.upstream.fault = { kind: "no_usage" };
    await s.client.chat.completions.create(ask);
    await s.gw.assertLedgerInvariant(s.keyId);
    const settle = (await s.gw.ledger(s.keyId)).find((entry) => entry.type === "charge")!;
    assertOk(settle.cost! > 0);
  },
);
