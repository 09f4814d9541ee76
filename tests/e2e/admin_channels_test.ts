/**
 * Admin channels end to end: single upstream keys added and removed by fingerprint, channel
 * health counted from real requests, and the channel test call (never billed, never enabling;
 * image and video channels: channel_test_media_test.ts).
 */

import { createHash } from "node:crypto";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { assertAdminError } from "../helpers/admin_error.ts";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { serverTest, startTestGateway, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import { MODEL, setupChat, setupText, UPSTREAM_MODEL } from "../helpers/text_setup.ts";
import { startOpenAIChatUpstream } from "../upstream/openai_chat.ts";

const fingerprintOf = (key: string) => createHash("sha256").update(key).digest("hex").slice(0, 8);

Deno.test(
  "admin channels: PATCH add_keys and remove_keys change single keys, shown by fingerprint",
  serverTest,
  async () => {
    await using upstream = startOpenAIChatUpstream({
      keys: ["sk-first-key-Wq1x", "sk-second-key-Zr2y"],
    });
    await using gw = await startTestGateway();
    await gw.putModel("m", { kind: "text", price: TEST_TEXT_PRICE });
    const channel = await gw.addChannel({
      base_url: upstream.baseUrl,
      keys: ["sk-first-key-Wq1x"],
      models: ["m"],
    });
    const path = `/admin/channels/${channel.id}`;
    const first = { fingerprint: fingerprintOf("sk-first-key-Wq1x"), last4: "Wq1x" };
    const second = { fingerprint: fingerprintOf("sk-second-key-Zr2y"), last4: "Zr2y" };
    assertEquals((await gw.admin("GET", path)).body.keys, [first]);

    const added = await gw.admin("PATCH", path, { add_keys: ["sk-second-key-Zr2y"] });
    assertEquals(added.status, 200, JSON.stringify(added.body));
    assertEquals([added.body.key_count, added.body.keys], [2, [first, second]]);
    assertOk(!JSON.stringify(added.body).includes("sk-second-key-Zr2y"), "a key was echoed");
    // Adding a key the channel has already keeps it once.
    const again = await gw.admin("PATCH", path, { add_keys: ["sk-second-key-Zr2y"] });
    assertEquals(again.body.keys, [first, second]);

    const removed = await gw.admin("PATCH", path, { remove_keys: [first.fingerprint] });
    assertEquals(removed.status, 200, JSON.stringify(removed.body));
    assertEquals([removed.body.key_count, removed.body.keys], [1, [second]]);
    const { key } = await gw.createKey({ balance: 10_000_000 });
    const answer = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    assertEquals(answer.status, 200, await answer.text());
    assertEquals(upstream.requests.at(-1)?.authorization, "Bearer sk-second-key-Zr2y");

    await gw.settle(); // the request's attempt is in the channel's health before `before`
    const before = (await gw.admin("GET", path)).body;
    const unknown = assertAdminError(
      await gw.admin("PATCH", path, { remove_keys: ["0badf00d"] }),
      400,
      "unknown_key_fingerprint",
    );
    assertOk(unknown.includes("'0badf00d'") && unknown.includes(second.fingerprint), unknown);
    const last = assertAdminError(
      await gw.admin("PATCH", path, { remove_keys: [second.fingerprint] }),
      400,
      "last_upstream_key",
    );
    assertOk(last.includes(channel.id), last);
    for (
      const body of [
        { remove_keys: ["sk-second-key-Zr2y"] }, // a key, not its fingerprint: never echoed
        { remove_keys: [] },
        { add_keys: [""] },
        { keys: ["sk-x-0000"], add_keys: ["sk-y-0000"] },
      ]
    ) {
      const refused = await gw.admin("PATCH", path, body);
      const message = assertAdminError(refused, 400, refused.body?.error?.code);
      assertOk(!message.includes("sk-second-key-Zr2y"), message);
    }
    assertEquals((await gw.admin("GET", path)).body, before, "a refused PATCH changed the channel");
    // A key and a removal in one PATCH: a rotation.
    const rotated = await gw.admin("PATCH", path, {
      add_keys: ["sk-first-key-Wq1x"],
      remove_keys: [second.fingerprint],
    });
    assertEquals(rotated.body.keys, [first]);

    // Hints are made from the opened keys when shown: nothing of a key is in KV in clear.
    using kv = await Deno.openKv(gw.kvPath);
    for await (const entry of kv.list({ prefix: [] })) {
      const text = JSON.stringify(
        entry.value ?? null,
        (_, value) => typeof value === "bigint" ? String(value) : value,
      );
      assertOk(!/Wq1x|Zr2y/.test(text), `part of an upstream key in clear under ${entry.key}`);
    }

    assertAdminError(
      await gw.admin("PATCH", "/admin/channels/ch_nonexistent", { add_keys: ["sk-z-0000"] }),
      404,
      "channel_not_found",
    );
  },
);

Deno.test(
  "admin channels: health counts successes and failures of real requests, p50 and the last error",
  serverTest,
  async () => {
    await using s = await setupChat();
    const channelId = (await s.gw.admin("GET", "/admin/channels")).body.data[0].id;
    const fresh = (await s.gw.admin("GET", `/admin/channels/${channelId}`)).body.health;
    assertEquals(fresh, {
      window_minutes: 60,
      requests: 0,
      success_rate: null,
      p50_latency_ms: null,
      last_error: null,
      last_error_class: null,
      last_error_at: null,
    });
    for (let i = 0; i < 3; i++) {
      await s.client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: `hello ${i}` }],
      });
    }
    s.upstream.faults.push(
      { kind: "status", status: 500, message: "overloaded" },
      { kind: "status", status: 500, message: "overloaded" },
    );
    for (let i = 0; i < 2; i++) {
      const failed = await fetch(`${s.gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "x" }] }),
      });
      assertEquals(failed.status, 502, await failed.text());
    }
    await s.gw.settle();
    const health = (await s.gw.admin("GET", `/admin/channels/${channelId}`)).body.health;
    assertEquals([health.requests, health.success_rate], [5, 0.6], JSON.stringify(health));
    assertOk(typeof health.p50_latency_ms === "number" && health.p50_latency_ms > 0);
    assertEquals(health.last_error_class, "http_500");
    assertOk(health.last_error.includes("overloaded"), health.last_error);
    assertOk(Date.parse(health.last_error_at) <= Date.now());
    const listed = (await s.gw.admin("GET", "/admin/channels")).body.data[0];
    assertEquals(listed.health, health);
  },
);

Deno.test(
  "admin channels: POST /test makes one minimal call, answers status and latency, bills nothing",
  serverTest,
  async () => {
    await using s = await setupChat();
    const channelId = (await s.gw.admin("GET", "/admin/channels")).body.data[0].id;
    const path = `/admin/channels/${channelId}/test`;
    const opening = await s.gw.balance(s.keyId);

    const passed = await s.gw.admin("POST", path);
    assertEquals(passed.status, 200, JSON.stringify(passed.body));
    assertEquals(
      { ...passed.body, latency_ms: 0 },
      {
        ok: true,
        status: 200,
        latency_ms: 0,
        model: MODEL,
        channel_id: channelId,
        call: "one user turn 'ping', at most 1 output token",
      },
    );
    assertOk(passed.body.latency_ms >= 0);
    const sent = s.upstream.requests.at(-1)!.body;
    assertEquals([sent.model, sent.max_completion_tokens, sent.stream], [
      UPSTREAM_MODEL,
      1,
      undefined,
    ]);

    // The upstream's error quotes the channel's key: it comes back redacted.
    s.upstream.fault = {
      kind: "status",
      status: 500,
      message: "Broken for key sk-upstream-test, sorry",
    };
    const failed = await s.gw.admin("POST", path, { model: MODEL });
    s.upstream.fault = undefined;
    assertEquals(failed.status, 200, JSON.stringify(failed.body));
    assertEquals(
      [failed.body.ok, failed.body.status, failed.body.error_class],
      [false, 500, "http_500"],
    );
    assertOk(!JSON.stringify(failed.body).includes("sk-upstream-test"), failed.body.error);
    assertOk(failed.body.error.includes("[redacted]"), failed.body.error);

    // Both tests count in the channel's health; neither is billed nor in the ledger.
    const health = (await s.gw.admin("GET", `/admin/channels/${channelId}`)).body.health;
    assertEquals([health.requests, health.success_rate], [2, 0.5]);
    assertEquals(health.last_error_class, "http_500");
    await assertNothingCharged(s, opening, { untouched: true });
    const ledger = (await s.gw.admin("GET", "/admin/ledger")).body.data;
    assertEquals(ledger.filter((entry: { type: string }) => entry.type !== "credit"), []);

    // A disabled channel can be tested, and a passing test does not enable it.
    await s.gw.admin("PATCH", `/admin/channels/${channelId}`, { enabled: false });
    assertEquals((await s.gw.admin("POST", path)).body.ok, true);
    assertEquals((await s.gw.admin("GET", `/admin/channels/${channelId}`)).body.enabled, false);
  },
);

Deno.test(
  "admin channels: POST /test speaks each text channel's own format",
  serverTest,
  async () => {
    await using s = await setupText();
    const channels = (await s.gw.admin("GET", "/admin/channels")).body.data;
    for (const channel of channels) {
      const tested = await s.gw.admin("POST", `/admin/channels/${channel.id}/test`, {});
      assertEquals(
        [channel.type, tested.body.ok, tested.body.status],
        [channel.type, true, 200],
        JSON.stringify(tested.body),
      );
    }
    assertEquals(
      [s.count("openai"), s.count("openai-responses"), s.count("anthropic"), s.count("gemini")],
      [1, 1, 1, 1],
    );
    assertEquals(s.lastBody("anthropic").max_tokens, 1);
  },
);

Deno.test(
  "admin channels: POST /test refuses unknown channels, models the channel lacks and bad bodies",
  serverTest,
  async () => {
    await using s = await setupChat();
    const channelId = (await s.gw.admin("GET", "/admin/channels")).body.data[0].id;
    const path = `/admin/channels/${channelId}/test`;
    assertAdminError(
      await s.gw.admin("POST", "/admin/channels/ch_nonexistent/test", {}),
      404,
      "channel_not_found",
    );
    const other = assertAdminError(
      await s.gw.admin("POST", path, { model: "other-model" }),
      400,
      "model_not_on_channel",
    );
    assertOk(other.includes(MODEL), other);
    for (const body of [{ model: 5 }, { model: MODEL, extra: true }, []]) {
      const refused = await s.gw.admin("POST", path, body);
      assertEquals(refused.status, 400, JSON.stringify(refused.body));
    }
    assertEquals(s.upstream.requests.length, 0);
  },
);
