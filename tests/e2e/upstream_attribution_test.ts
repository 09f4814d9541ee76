/** Every failed upstream attempt is attributed: channel, URL, cause class, latency. */

import { refusedPort } from "../helpers/refused_port.ts";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { type ChatSetup, MODEL, setupChat } from "../helpers/text_setup.ts";
import { startOpenAIChatUpstream, startResettingServer } from "../upstream/openai_chat.ts";

const ask = { model: MODEL, messages: [{ role: "user", content: "who failed?" }] };

/** A loopback port that nothing listens on. */

/** Replaces the setup's only channel by one at `baseUrl`; returns its id. */
async function onlyChannel(s: ChatSetup, baseUrl: string, extra = {}): Promise<string> {
  const channels = (await s.gw.admin("GET", "/admin/channels")).body.data;
  for (const channel of channels) await s.gw.admin("DELETE", `/admin/channels/${channel.id}`);
  const created = await s.gw.addChannel({
    name: "only",
    base_url: baseUrl,
    models: [MODEL],
    ...extra,
  });
  return created.id;
}

// deno-lint-ignore no-explicit-any
async function lastRequest(s: ChatSetup): Promise<any> {
  await s.gw.settle();
  return (await s.gw.admin("GET", "/admin/requests?limit=1")).body.data[0];
}

const cases: Array<{
  label: string;
  errorClass: string;
  status?: number;
  // deno-lint-ignore no-explicit-any
  start(): Promise<{ baseUrl: string; extra?: any } & AsyncDisposable>;
}> = [
  {
    label: "a refused connection",
    errorClass: "connect_refused",
    start: () =>
      Promise.resolve({
        baseUrl: `http://127.0.0.1:${refusedPort()}/v1`,
        [Symbol.asyncDispose]: async () => {},
      }),
  },
  {
    label: "a host name that does not resolve",
    errorClass: "dns",
    start: () =>
      Promise.resolve({
        baseUrl: "http://upstream.invalid/v1",
        [Symbol.asyncDispose]: async () => {},
      }),
  },
  {
    label: "TLS spoken to a plain HTTP server",
    errorClass: "tls",
    start() {
      const plain = startOpenAIChatUpstream();
      return Promise.resolve({
        baseUrl: plain.baseUrl.replace("http:", "https:"),
        [Symbol.asyncDispose]: plain.close,
      });
    },
  },
  {
    label: "a connection reset",
    errorClass: "reset",
    start() {
      const reset = startResettingServer();
      return Promise.resolve({
        baseUrl: reset.baseUrl,
        [Symbol.asyncDispose]: reset[Symbol.asyncDispose],
      });
    },
  },
  {
    label: "a timeout",
    errorClass: "timeout",
    start() {
      const slow = startOpenAIChatUpstream();
      slow.fault = { kind: "hang" };
      return Promise.resolve({
        baseUrl: slow.baseUrl,
        extra: { timeout_ms: 300 },
        [Symbol.asyncDispose]: slow.close,
      });
    },
  },
  {
    label: "an upstream 500",
    errorClass: "http_500",
    status: 500,
    start() {
      const failing = startOpenAIChatUpstream();
      failing.fault = { kind: "status", status: 500 };
      return Promise.resolve({ baseUrl: failing.baseUrl, [Symbol.asyncDispose]: failing.close });
    },
  },
  {
    label:
      "an upstream 404 (a wrong base URL or model map is the channel's fault, not the client's)",
    errorClass: "http_404",
    status: 404,
    start() {
      const missing = startOpenAIChatUpstream();
      missing.fault = { kind: "status", status: 404 };
      return Promise.resolve({ baseUrl: missing.baseUrl, [Symbol.asyncDispose]: missing.close });
    },
  },
];

for (const { label, errorClass, status, start } of cases) {
  Deno.test(
    `upstream attribution: ${label} is a 502 naming the channel and '${errorClass}', recorded, not charged`,
    serverTest,
    async () => {
      await using s = await setupChat();
      await using upstream = await start();
      const channelId = await onlyChannel(s, upstream.baseUrl, upstream.extra);
      const response = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
      const body = await response.json();
      assertEquals(response.status, 502);
      assertEquals(body.error.code, "upstream_unavailable");
      assertEquals(response.headers.get("x-gateway-channel"), channelId);
      assertOk(body.error.message.includes(errorClass), body.error.message);
      assertOk(body.error.message.includes(channelId), body.error.message);
      assertOk(!body.error.message.includes("sk-upstream-test"));

      const record = await lastRequest(s);
      assertEquals(record.status, 502);
      assertEquals(record.channel_id, channelId);
      assertEquals(record.attempts, 1);
      const [attempt] = record.upstream_attempts;
      assertEquals(attempt.channel_id, channelId);
      assertEquals(attempt.outcome, "failed");
      assertEquals(attempt.error_class, errorClass);
      assertEquals(attempt.status, status);
      assertEquals(attempt.url, `${upstream.baseUrl}/chat/completions`);
      assertOk(typeof attempt.latency_ms === "number");
      await assertNothingCharged(s, 10_000_000);
    },
  );
}

Deno.test(
  "upstream attribution: with failover the record lists the dead channel's attempt and the live one's",
  serverTest,
  async () => {
    await using s = await setupChat();
    const primary = (await s.gw.admin("GET", "/admin/channels")).body.data[0].id;
    const dead = await s.gw.addChannel({
      name: "dead",
      base_url: `http://127.0.0.1:${refusedPort()}/v1`,
      models: [MODEL],
      priority: 1,
    });
    const response = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    assertEquals(response.status, 200);
    assertEquals(response.headers.get("x-gateway-channel"), primary);
    await response.body?.cancel();
    const record = await lastRequest(s);
    assertEquals(record.channel_id, primary);
    assertEquals(record.attempts, 2);
    assertEquals(
      record.upstream_attempts.map((a: { channel_id: string; outcome: string }) => [
        a.channel_id,
        a.outcome,
      ]),
      [[dead.id, "failed"], [primary, "ok"]],
    );
    assertEquals(record.upstream_attempts[0].error_class, "connect_refused");
    assertEquals(record.upstream_attempts[1].error_class, undefined);
  },
);

Deno.test(
  "upstream attribution: a successful attempt records its upstream status (200) as a failed one does (503)",
  serverTest,
  async () => {
    await using s = await setupChat();
    const live = (await s.gw.admin("GET", "/admin/channels")).body.data[0].id;
    await using failing = startOpenAIChatUpstream();
    failing.fault = { kind: "status", status: 503 };
    const busy = await s.gw.addChannel({
      name: "busy",
      base_url: failing.baseUrl,
      models: [MODEL],
      priority: 1,
    });
    const response = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    assertEquals(response.status, 200);
    await response.body?.cancel();
    const record = await lastRequest(s);
    assertEquals(
      record.upstream_attempts.map((a: { channel_id: string; outcome: string; status: number }) => [
        a.channel_id,
        a.outcome,
        a.status,
      ]),
      [[busy.id, "failed", 503], [live, "ok", 200]],
    );
  },
);
