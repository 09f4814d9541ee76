/**
 * Circuit breakers end to end: a hostile set of upstreams (one dead, one slow, one healthy), a
 * 429 with retry-after, client 400s, and the reset. State is driven by request counts and by the
 * gateway's breaker clock, which the test moves; nothing here waits out a cooldown.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest, startTestGateway, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import { freePort } from "../helpers/gateway_process.ts";
import { startOpenAIChatUpstream } from "../upstream/openai_chat.ts";

const MODEL = "gpt-test";
const ask = { model: MODEL, messages: [{ role: "user", content: "breakers" }] };

/** A clock the test moves. */
function testClock() {
  const clock = { now: Date.now(), read: () => clock.now };
  return clock;
}

async function startWithClock() {
  const clock = testClock();
  const gw = await startTestGateway({}, { now: clock.read });
  await gw.putModel(MODEL, { kind: "text", price: TEST_TEXT_PRICE });
  const { key, id: keyId } = await gw.createKey({ balance: 10_000_000 });
  return { gw, clock, key, keyId };
}

type Attempt = { channel_id: string; outcome: string; reason?: string; error_class?: string };

/** The attempts of every request logged so far, oldest request first. */
async function attemptsByRequest(
  gw: Awaited<ReturnType<typeof startTestGateway>>,
): Promise<Attempt[][]> {
  await gw.settle();
  const page = await gw.admin("GET", "/admin/requests?order=asc&limit=200");
  return page.body.data.map((entry: { upstream_attempts: Attempt[] }) => entry.upstream_attempts);
}

function summary(attempts: Attempt[], names: Record<string, string>): string[] {
  return attempts.map((attempt) =>
    `${names[attempt.channel_id]}:${attempt.outcome}${attempt.reason ? `(${attempt.reason})` : ""}`
  );
}

Deno.test(
  "breakers: a dead and a slow channel are skipped once open, until their half-open probe",
  serverTest,
  async () => {
    const { gw, clock, key } = await startWithClock();
    await using _gw = gw;
    await using healthy = startOpenAIChatUpstream();
    await using slow = startOpenAIChatUpstream();
    slow.fault = { kind: "hang" };
    const dead = await gw.addChannel({
      name: "dead",
      base_url: `http://127.0.0.1:${freePort()}/v1`,
      models: [MODEL],
      priority: 3,
    });
    const slowChannel = await gw.addChannel({
      name: "slow",
      base_url: slow.baseUrl,
      models: [MODEL],
      priority: 2,
      timeout_ms: 150,
    });
    const good = await gw.addChannel({
      name: "healthy",
      base_url: healthy.baseUrl,
      models: [MODEL],
      priority: 1,
    });
    const names = { [dead.id]: "dead", [slowChannel.id]: "slow", [good.id]: "healthy" };
    const send = async () => {
      const response = await postJson(gw, "/v1/chat/completions", key, ask);
      assertEquals(response.status, 200, await response.clone().text());
      assertEquals(response.headers.get("x-gateway-channel"), good.id);
      await response.body?.cancel();
    };

    // 5 failures of 5 attempts: both breakers open (≥ 5 failures and ≥ 50 %).
    for (let i = 0; i < 5; i++) await send();
    // Open: 10 requests pay no attempt on either.
    for (let i = 0; i < 10; i++) await send();
    let log = await attemptsByRequest(gw);
    assertEquals(log.length, 15);
    for (const attempts of log.slice(0, 5)) {
      assertEquals(summary(attempts, names), ["dead:failed", "slow:failed", "healthy:ok"]);
    }
    for (const attempts of log.slice(5)) {
      assertEquals(summary(attempts, names), [
        "dead:skipped(breaker_open)",
        "slow:skipped(breaker_open)",
        "healthy:ok",
      ]);
    }
    assertEquals(slow.requests.length, 5);

    // The first cooldown (10 s) ends: one probe each, which fail and reopen them for 30 s.
    clock.now += 10_000;
    await send();
    await send();
    clock.now += 29_000;
    await send();
    log = await attemptsByRequest(gw);
    assertEquals(summary(log[15], names), ["dead:failed", "slow:failed", "healthy:ok"]);
    for (const attempts of log.slice(16)) {
      assertEquals(summary(attempts, names), [
        "dead:skipped(breaker_open)",
        "slow:skipped(breaker_open)",
        "healthy:ok",
      ]);
    }

    // The slow channel recovers; its next probe succeeds and closes its breaker.
    slow.fault = undefined;
    clock.now += 1_000;
    const recovered = await postJson(gw, "/v1/chat/completions", key, ask);
    assertEquals(recovered.status, 200);
    assertEquals(recovered.headers.get("x-gateway-channel"), slowChannel.id);
    await recovered.body?.cancel();
    log = await attemptsByRequest(gw);
    assertEquals(summary(log.at(-1)!, names), ["dead:failed", "slow:ok"]);

    // The console's and the API's view: the dead channel open with its reason; the slow closed.
    const view = await gw.admin("GET", `/admin/channels/${dead.id}/breakers`);
    assertEquals(view.status, 200);
    assertEquals(view.body.state, "open");
    assertEquals(view.body.reasons.at(-1).reason, "connect_refused");
    assertEquals(
      (await gw.admin("GET", `/admin/channels/${slowChannel.id}/breakers`)).body.state,
      "closed",
    );

    // /metrics: the breaker gauge and the latency histogram per channel.
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    assertOk(metrics.includes(`gateway_channel_breaker_state{channel="${dead.id}"} 2`), metrics);
    assertOk(metrics.includes(`gateway_channel_breaker_state{channel="${good.id}"} 0`));
    assertOk(
      metrics.includes(`gateway_upstream_latency_seconds_count{channel="${good.id}"} 18`),
      metrics,
    );
    assertOk(
      metrics.includes(
        `gateway_upstream_latency_seconds_bucket{channel="${good.id}",le="+Inf"} 18`,
      ),
    );

    // An operator resets the dead channel's breaker: the next request tries it again.
    const reset = await gw.admin("POST", `/admin/channels/${dead.id}/breakers/reset`, {});
    assertEquals(reset.status, 200);
    assertEquals(reset.body.reset, ["channel"]);
    const again = await postJson(gw, "/v1/chat/completions", key, ask);
    assertEquals(again.status, 200);
    await again.body?.cancel();
    log = await attemptsByRequest(gw);
    assertEquals(summary(log.at(-1)!, names), ["dead:failed", "slow:ok"]);
    const audit = await gw.admin("GET", "/admin/audit");
    assertOk(
      audit.body.data.some((record: { route: string }) =>
        record.route === "/admin/channels/:id/breakers/reset"
      ),
      JSON.stringify(audit.body.data.map((record: { route: string }) => record.route)),
    );
  },
);

Deno.test(
  "breakers: a channel answering 429 with retry-after is not tried again before that time",
  serverTest,
  async () => {
    const { gw, clock, key, keyId } = await startWithClock();
    await using _gw = gw;
    await using limited = startOpenAIChatUpstream();
    await using other = startOpenAIChatUpstream();
    limited.faults.push({ kind: "status", status: 429, retryAfter: "30" });
    const busy = await gw.addChannel({
      name: "limited",
      base_url: limited.baseUrl,
      models: [MODEL],
      priority: 2,
    });
    const spare = await gw.addChannel({
      name: "spare",
      base_url: other.baseUrl,
      models: [MODEL],
      priority: 1,
    });
    const names = { [busy.id]: "limited", [spare.id]: "spare" };
    for (let i = 0; i < 4; i++) {
      const response = await postJson(gw, "/v1/chat/completions", key, ask);
      assertEquals(response.status, 200);
      await response.body?.cancel();
      clock.now += 7_000; // 0, 7, 14, 21 s: all before the 30 s
    }
    assertEquals(limited.requests.length, 1);
    let log = await attemptsByRequest(gw);
    assertEquals(summary(log[0], names), ["limited:failed", "spare:ok"]);
    for (const attempts of log.slice(1)) {
      assertEquals(summary(attempts, names), ["limited:skipped(retry_after)", "spare:ok"]);
    }
    // With the spare disabled, every channel is aside: 429 with the soonest retry-after.
    await gw.admin("PATCH", `/admin/channels/${spare.id}`, { enabled: false });
    const refused = await postJson(gw, "/v1/chat/completions", key, ask);
    assertEquals(refused.status, 429);
    assertEquals(refused.headers.get("retry-after"), "2");
    assertEquals((await refused.json()).error.code, "upstream_rate_limited");
    assertEquals(limited.requests.length, 1);
    // At 30 s the channel is tried again.
    clock.now += 2_000;
    const after = await postJson(gw, "/v1/chat/completions", key, ask);
    assertEquals(after.status, 200);
    await after.body?.cancel();
    assertEquals(limited.requests.length, 2);
    log = await attemptsByRequest(gw);
    assertEquals(summary(log.at(-1)!, names), ["limited:ok"]);
    await gw.assertLedgerInvariant(keyId);
  },
);

Deno.test("breakers: client 400s never open a breaker", serverTest, async () => {
  const { gw, key } = await startWithClock();
  await using _gw = gw;
  await using upstream = startOpenAIChatUpstream();
  const channel = await gw.addChannel({
    name: "only",
    base_url: upstream.baseUrl,
    models: [MODEL],
  });
  upstream.fault = { kind: "status", status: 400, message: "max_tokens is too large" };
  for (let i = 0; i < 12; i++) {
    const response = await postJson(gw, "/v1/chat/completions", key, ask);
    assertEquals(response.status, 400);
    await response.body?.cancel();
  }
  upstream.fault = undefined;
  const response = await postJson(gw, "/v1/chat/completions", key, ask);
  assertEquals(response.status, 200);
  await response.body?.cancel();
  assertEquals(upstream.requests.length, 13);
  const view = await gw.admin("GET", `/admin/channels/${channel.id}/breakers`);
  assertEquals(view.body.state, "closed");
  assertEquals(view.body.keys[0].state, "closed");
});
