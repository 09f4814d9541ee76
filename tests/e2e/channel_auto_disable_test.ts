/**
 * Automatic disabling and recovery, end to end: a key the upstream refuses (401) is disabled after
 * the channel's `auto_disable_refusals` refusals in a row, skipped by routing at no cost, and
 * enabled again by a recovery probe once the upstream accepts it; each change is audited with
 * actor `gateway` and delivered as a webhook event. The clock is the test's: probes come due by
 * moving it, never by sleeping.
 */

import OpenAI from "openai";
import { Webhook } from "standardwebhooks";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import { consoleClient } from "../helpers/console_client.ts";
import { startWebhookReceiver } from "../helpers/webhook_receiver.ts";
import { WEBHOOK_TEST_ENV } from "../helpers/webhook_setup.ts";
import { startOpenAIChatUpstream } from "../upstream/openai_chat.ts";
import { runRecoveryProbes } from "../../workers/channel_recovery.ts";
import { keyHint } from "../../core/channels/key_hint.ts";
import { readSettings } from "../../core/settings.ts";
import { startGateway } from "../../main.ts";

const MODEL = "gpt-auto";
const REVOKED = "sk-revoked-key-0001";
const GOOD = "sk-good-key-0002";

/** A gateway on the test's clock, a preferred channel whose one key the upstream refuses, and a healthy one behind it. */
async function setup() {
  await using stack = new AsyncDisposableStack();
  const clock = { now: Date.now() };
  const tick = () => clock.now;
  // One clock for every timing rule (the breakers' too, where they read one): tests move it.
  const clocks = { now: tick };
  const gw = stack.use(await startTestGateway(WEBHOOK_TEST_ENV, clocks));
  const accepted: string[] = [GOOD];
  const refusing = stack.use(startOpenAIChatUpstream({ keys: accepted }));
  const healthy = stack.use(startOpenAIChatUpstream({ keys: [GOOD] }));
  await gw.putModel(MODEL, { kind: "text", price: TEST_TEXT_PRICE });
  const preferred = await gw.addChannel({
    name: "preferred",
    base_url: refusing.baseUrl,
    keys: [REVOKED],
    models: [MODEL],
    priority: 10,
    // Only the key rule here: the clock jumps between refusals.
    auto_disable_after_ms: 0,
  });
  const backup = await gw.addChannel({
    name: "backup",
    base_url: healthy.baseUrl,
    keys: [GOOD],
    models: [MODEL],
  });
  const { id: keyId, key } = await gw.createKey({ balance: 10_000_000 });
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const owned = stack.move();
  return {
    gw,
    clock,
    accepted,
    refusing,
    healthy,
    preferredId: preferred.id as string,
    backupId: backup.id as string,
    keyId,
    client,
    fingerprint: (await keyHint(REVOKED)).fingerprint,
    [Symbol.asyncDispose]: () => owned.disposeAsync(),
  };
}

const ask = { model: MODEL, messages: [{ role: "user" as const, content: "hello" }] };

type Setup = Awaited<ReturnType<typeof setup>>;

/** Requests with the revoked key as the upstream saw them (each refused with 401). */
function refusals(s: Setup): number {
  return s.refusing.requests.filter((request) => request.authorization === `Bearer ${REVOKED}`)
    .length;
}

/**
 * Sends requests (each served by the healthy channel) until the revoked key is marked, moving the
 * clock 15 minutes before each after the first, past any cooldown that would set the key aside
 * between two tries. Returns the mark.
 */
async function refuseUntilDisabled(s: Setup) {
  for (let i = 0; i < 10; i++) {
    if (i > 0) s.clock.now += 15 * 60_000;
    const answer = await s.client.chat.completions.create(ask);
    assertEquals(answer.choices[0].message.content, "Echo: hello");
    await s.gw.settle();
    const view = await s.gw.admin("GET", `/admin/channels/${s.preferredId}`);
    const mark = view.body.auto_disabled?.by_key?.[s.fingerprint];
    if (mark) return { view: view.body, mark };
  }
  throw new Error("the key was never disabled");
}

Deno.test(
  "auto-disable: a revoked key is disabled after 3 refusals, skipped, and re-enabled by the probe",
  serverTest,
  async () => {
    await using s = await setup();
    await using receiver = startWebhookReceiver();
    const endpoint = await s.gw.admin("POST", "/admin/webhooks", {
      url: receiver.url,
      events: ["channel.disabled", "channel.recovered"],
    });
    assertEquals(endpoint.status, 201, JSON.stringify(endpoint.body));

    const { view, mark } = await refuseUntilDisabled(s);
    assertEquals(refusals(s), 3, "disabled at the third refusal in a row, not before");
    assertEquals(view.enabled, true, "the operator's switch is not touched");
    assertOk(/refused the key 3 times in a row \(HTTP 401\)/.test(mark.reason), mark.reason);
    assertEquals(view.auto_disabled.channel, null);

    // Skipped at no cost: the next requests go straight to the healthy channel.
    for (let i = 0; i < 3; i++) await s.client.chat.completions.create(ask);
    assertEquals(s.refusing.requests.length, 3, "no attempt on a disabled key");

    // Not due yet: the probe pass does nothing.
    assertEquals(await runRecoveryProbes(s.gw.running.gateway), 0);
    // Due, still refused: the probe fails and the next one is put further off.
    s.clock.now += 31_000;
    assertEquals(await runRecoveryProbes(s.gw.running.gateway), 1);
    const after = (await s.gw.admin("GET", `/admin/channels/${s.preferredId}`)).body;
    const later = after.auto_disabled.by_key[s.fingerprint];
    assertEquals(later.probes, 1);
    assertEquals(later.next_probe_at, s.clock.now + 60_000, "the second wait is longer");
    assertEquals(await runRecoveryProbes(s.gw.running.gateway), 0, "not due again yet");

    // The upstream takes the key again: the next due probe enables it.
    s.accepted.push(REVOKED);
    s.clock.now += 61_000;
    assertEquals(await runRecoveryProbes(s.gw.running.gateway), 1);
    const recovered = (await s.gw.admin("GET", `/admin/channels/${s.preferredId}`)).body;
    assertEquals(recovered.auto_disabled, null);
    const before = s.refusing.requests.length;
    await s.client.chat.completions.create(ask);
    assertEquals(s.refusing.requests.length, before + 1, "the key serves again");

    // Audited with actor gateway, disable then recovery.
    const audit = await s.gw.admin(
      "GET",
      `/admin/audit?actor=gateway&target_id=${s.preferredId}&limit=10`,
    );
    assertEquals(audit.status, 200, JSON.stringify(audit.body));
    const routes = audit.body.data.map((record: { route: string }) => record.route).reverse();
    assertEquals(routes, ["gateway:channel.disabled", "gateway:channel.recovered"]);
    assertEquals(audit.body.data[0].actor, "gateway");

    // Delivered to the endpoint that names the events, signed as every delivery is.
    const received = await receiver.waitFor(2);
    const verifier = new Webhook(endpoint.body.secret);
    const events = received.map((delivery) =>
      verifier.verify(delivery.body, {
        "webhook-id": delivery.id,
        "webhook-timestamp": delivery.timestamp,
        "webhook-signature": delivery.signature,
      }) as { type: string; data: Record<string, unknown> }
    );
    assertEquals(events.map((event) => event.type), ["channel.disabled", "channel.recovered"]);
    assertEquals(events[0].data.channel_id, s.preferredId);
    assertEquals(events[0].data.name, "preferred");
    assertEquals(events[0].data.key_fingerprint, s.fingerprint);
    assertOk(String(events[0].data.reason).includes("401"));
    assertOk(typeof events[0].data.at === "string");
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);

Deno.test(
  "auto-disable: an operator-disabled channel is never probed or re-enabled by the gateway",
  serverTest,
  async () => {
    await using s = await setup();
    await refuseUntilDisabled(s);
    const patched = await s.gw.admin("PATCH", `/admin/channels/${s.preferredId}`, {
      enabled: false,
    });
    assertEquals(patched.status, 200);
    s.accepted.push(REVOKED);
    const seen = s.refusing.requests.length;
    for (let i = 0; i < 3; i++) {
      s.clock.now += 700_000;
      assertEquals(await runRecoveryProbes(s.gw.running.gateway), 0);
    }
    assertEquals(s.refusing.requests.length, seen, "no probe of an operator-disabled channel");
    const view = (await s.gw.admin("GET", `/admin/channels/${s.preferredId}`)).body;
    assertEquals(view.enabled, false);
    assertOk(view.auto_disabled.by_key[s.fingerprint], "the mark stays until a probe passes");
  },
);

Deno.test(
  "auto-disable: the operator re-enables by PATCH clear_auto_disabled, audited as theirs",
  serverTest,
  async () => {
    await using s = await setup();
    await refuseUntilDisabled(s);
    const cleared = await s.gw.admin("PATCH", `/admin/channels/${s.preferredId}`, {
      clear_auto_disabled: true,
    });
    assertEquals(cleared.status, 200, JSON.stringify(cleared.body));
    assertEquals(cleared.body.auto_disabled, null);
    const audit = await s.gw.admin(
      "GET",
      `/admin/audit?actor=admin_token&target_id=${s.preferredId}&limit=1`,
    );
    assertEquals(audit.body.data[0].method, "PATCH");
    assertOk(audit.body.data[0].before.auto_disabled.by_key[s.fingerprint]);
    assertEquals(audit.body.data[0].after.auto_disabled, null);
    const bad = await s.gw.admin("PATCH", `/admin/channels/${s.preferredId}`, {
      clear_auto_disabled: false,
    });
    assertEquals(bad.status, 400);
  },
);

Deno.test(
  "auto-disable: a channel failing past auto_disable_after_ms is disabled; client 400s never count",
  serverTest,
  async () => {
    await using s = await setup();
    await s.gw.admin("PATCH", `/admin/channels/${s.preferredId}`, {
      keys: [GOOD],
      auto_disable_after_ms: 60_000,
    });
    // Client errors (a tool message out of order: the upstream's 400) say nothing of the channel.
    const badAsk = { model: MODEL, messages: [{ role: "tool", content: "x", tool_call_id: "a" }] };
    for (let i = 0; i < 2; i++) {
      s.clock.now += 61_000;
      await s.client.chat.completions.create(badAsk as never).catch(() => {});
    }
    await s.gw.settle();
    assertEquals(
      (await s.gw.admin("GET", `/admin/channels/${s.preferredId}`)).body.auto_disabled,
      null,
    );
    // Server errors do: one, then another past the setting, disables the channel.
    s.refusing.fault = { kind: "status", status: 500 };
    await s.client.chat.completions.create(ask);
    s.clock.now += 61_000;
    await s.client.chat.completions.create(ask);
    await s.gw.settle();
    const view = (await s.gw.admin("GET", `/admin/channels/${s.preferredId}`)).body;
    assertOk(view.auto_disabled?.channel, JSON.stringify(view.auto_disabled));
    assertOk(/every attempt failed for 61 s/.test(view.auto_disabled.channel.reason));
    const seen = s.refusing.requests.length;
    await s.client.chat.completions.create(ask);
    assertEquals(s.refusing.requests.length, seen, "the disabled channel is skipped");
    // With the backup switched off by the operator as well, no channel serves the model: it
    // leaves the key's model list until the probe brings the channel back.
    await s.gw.admin("PATCH", `/admin/channels/${s.backupId}`, { enabled: false });
    const listed = async () => (await s.client.models.list()).data.map((model) => model.id);
    assertEquals((await listed()).includes(MODEL), false, "listed with no channel to serve it");
    // It answers again: the probe enables the whole channel.
    s.refusing.fault = undefined;
    s.clock.now += 31_000;
    assertEquals(await runRecoveryProbes(s.gw.running.gateway), 1);
    assertEquals(
      (await s.gw.admin("GET", `/admin/channels/${s.preferredId}`)).body.auto_disabled,
      null,
    );
    assertEquals((await listed()).includes(MODEL), true, "listed again once recovered");
  },
);

Deno.test(
  "auto-disable console: the list and detail show the flag with its reason; Re-enable clears it, audited",
  serverTest,
  async () => {
    await using s = await setup();
    await refuseUntilDisabled(s);
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();

    const list = await (await client.get("/console/channels")).text();
    assertOk(list.includes("1 of 1 keys auto-disabled"), "the list names the disabled key");
    const detail = await (await client.get(`/console/channels/${s.preferredId}`)).text();
    assertOk(detail.includes("Disabled by the gateway"), "the detail has the section");
    assertOk(detail.includes(`key ${s.fingerprint}`), "the key by its fingerprint");
    assertOk(detail.includes("refused the key 3 times in a row"), "the reason");
    assertOk(!detail.includes(REVOKED), "never the key itself");

    const reenabled = await client.post(`/console/channels/${s.preferredId}/reenable`, {});
    await reenabled.body?.cancel();
    assertEquals(reenabled.status, 303);
    const view = (await s.gw.admin("GET", `/admin/channels/${s.preferredId}`)).body;
    assertEquals(view.auto_disabled, null);
    const audit = await s.gw.admin(
      "GET",
      `/admin/audit?actor=console&target_id=${s.preferredId}&limit=1`,
    );
    assertOk(audit.body.data[0]?.before.auto_disabled.by_key[s.fingerprint], "audited");
    const after = await (await client.get(`/console/channels/${s.preferredId}`)).text();
    assertOk(!after.includes("Disabled by the gateway"));
  },
);

Deno.test(
  "auto-disable instances: a disable on one instance routes the other; one instance probes at a time",
  serverTest,
  async () => {
    await using s = await setup();
    const settings = readSettings((name) =>
      ({
        PORT: "0",
        HOST: "127.0.0.1",
        GATEWAY_KV: s.gw.kvPath,
        GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
        GATEWAY_LOG_REQUESTS: "0",
      })[name]
    );
    const other = await startGateway(settings, { quiet: true, now: () => s.clock.now });
    try {
      await refuseUntilDisabled(s);
      // The other instance's registry sees the mark when it next reads the catalog version.
      let seen = false;
      for (let i = 0; i < 200 && !seen; i++) {
        const channel = other.gateway.registry.channels.find((c) => c.id === s.preferredId);
        seen = channel?.auto_disabled?.by_key[s.fingerprint] !== undefined;
        if (!seen) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assertOk(seen, "the other instance routes by the mark");
      const before = s.refusing.requests.length;
      const viaOther = await new OpenAI({
        apiKey: (await s.gw.createKey({ balance: 1_000_000 })).key,
        baseURL: `${other.url}/v1`,
        maxRetries: 0,
      }).chat.completions.create(ask);
      assertEquals(viaOther.choices[0].message.content, "Echo: hello");
      assertEquals(s.refusing.requests.length, before, "no attempt on the disabled key there");

      // A pass on the other instance while this one's probe is under way: the lease holds it off.
      s.clock.now += 31_000;
      const started = Promise.withResolvers<void>();
      const release = Promise.withResolvers<void>();
      const first = runRecoveryProbes(s.gw.running.gateway, {
        probe: async () => {
          started.resolve();
          await release.promise;
          throw new Error("still refused");
        },
      });
      await started.promise;
      assertEquals(await runRecoveryProbes(other.gateway), 0, "the lease is held");
      release.resolve();
      assertEquals(await first, 1);
      const mark = (await s.gw.admin("GET", `/admin/channels/${s.preferredId}`)).body
        .auto_disabled.by_key[s.fingerprint];
      assertEquals(mark.probes, 1, "one probe in all");
    } finally {
      await other.shutdown();
    }
  },
);

Deno.test(
  "channel events: not in an endpoint's default events; only an endpoint of every key may name them",
  serverTest,
  async () => {
    await using gw = await startTestGateway(WEBHOOK_TEST_ENV);
    const plain = await gw.admin("POST", "/admin/webhooks", { url: "https://hooks.example/a" });
    assertEquals(plain.status, 201, JSON.stringify(plain.body));
    assertEquals(plain.body.events, ["task.succeeded", "task.failed", "task.refunded"]);
    const scoped = await gw.admin("POST", "/admin/webhooks", {
      url: "https://hooks.example/b",
      group: "vip",
      events: ["channel.disabled"],
    });
    assertEquals(scoped.status, 400, JSON.stringify(scoped.body));
    assertOk(JSON.stringify(scoped.body).includes("only an endpoint of every key"));
    const grouped = await gw.admin("POST", "/admin/webhooks", {
      url: "https://hooks.example/c",
      group: "vip",
    });
    const patched = await gw.admin("PATCH", `/admin/webhooks/${grouped.body.id}`, {
      events: ["task.failed", "channel.recovered"],
    });
    assertEquals(patched.status, 400, JSON.stringify(patched.body));
    const unknown = await gw.admin("POST", "/admin/webhooks", {
      url: "https://hooks.example/d",
      events: ["channel.exploded"],
    });
    assertEquals(unknown.status, 400);
  },
);
