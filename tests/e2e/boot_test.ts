/** The gateway as a real process: config validation at boot, admin token, graceful shutdown. */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import { startOpenAIChatUpstream } from "../upstream/openai_chat.ts";
import { spawnGateway } from "../helpers/gateway_process.ts";
import { tempDir } from "../helpers/temp_dir.ts";

Deno.test("boot: a bad config file stops the boot with the field path", serverTest, async () => {
  await using dir = await tempDir();
  const config = `${dir.path}/gateway.json`;
  await Deno.writeTextFile(
    config,
    JSON.stringify({
      channels: [{
        id: "a",
        name: "a",
        type: "openai",
        base_url: "https://x/v1",
        keys: ["k"],
        models: ["m"],
        priority: "high",
      }],
    }),
  );
  await using gateway = await spawnGateway({
    GATEWAY_KV: `${dir.path}/g.kv`,
    GATEWAY_CONFIG: config,
    GATEWAY_ADMIN_TOKEN: "t",
  });
  const status = await gateway.child.status;
  assertEquals(status.code, 1);
  const stderr = await gateway.stderr;
  assertOk(stderr.includes("channels[0].priority"), stderr);
});

Deno.test(
  "boot: without GATEWAY_ADMIN_TOKEN a token is generated, printed once, and works",
  serverTest,
  async () => {
    await using dir = await tempDir();
    const env = { GATEWAY_KV: `${dir.path}/data/g.kv` };
    await using first = await spawnGateway(env);
    const line = first.lines.find((l) => l.includes("admin_token"));
    assertOk(line, `no admin token line in ${first.lines.join("\n")}`);
    const token = JSON.parse(line).admin_token as string;
    const health = await fetch(`${first.url}/healthz`);
    assertEquals(health.status, 200);
    await health.body?.cancel();
    const keys = await fetch(`${first.url}/admin/keys`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assertEquals(keys.status, 200);
    await keys.body?.cancel();
    first.child.kill("SIGTERM");
    assertEquals((await first.child.status).code, 0);

    await using second = await spawnGateway(env);
    assertOk(!second.lines.some((l) => l.includes("admin_token")), "the token was printed twice");
    const again = await fetch(`${second.url}/admin/keys`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assertEquals(again.status, 200);
    await again.body?.cancel();
    second.child.kill("SIGTERM");
    await second.child.status;
  },
);

Deno.test(
  "shutdown: SIGTERM lets an in-flight stream finish and settle; no hold is left open",
  serverTest,
  async () => {
    await using upstream = startOpenAIChatUpstream({
      chunkDelayMs: 30,
      chunkSize: 2,
      keys: ["sk-from-env"],
    });
    await using dir = await tempDir();
    const config = `${dir.path}/gateway.json`;
    await Deno.writeTextFile(
      config,
      JSON.stringify({
        models: { "gpt-test": { kind: "text", price: TEST_TEXT_PRICE } },
        channels: [{
          id: "sim",
          name: "Simulator",
          type: "openai",
          base_url: upstream.baseUrl,
          keys: [{ env: "SIM_UPSTREAM_KEY" }],
          models: ["gpt-test"],
        }],
      }),
    );
    const kvPath = `${dir.path}/g.kv`;
    await using gateway = await spawnGateway({
      GATEWAY_KV: kvPath,
      GATEWAY_CONFIG: config,
      GATEWAY_ADMIN_TOKEN: "admin",
      SIM_UPSTREAM_KEY: "sk-from-env",
    });
    const created = await postJson(gateway, "/admin/keys", "admin", {
      name: "t",
      balance: 1_000_000,
    });
    const { id, key } = await created.json();
    const response = await postJson(gateway, "/v1/chat/completions", key, {
      model: "gpt-test",
      stream: true,
      messages: [{ role: "user", content: "slow ".repeat(10) }],
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = (await reader.read()).value ?? "";
    gateway.child.kill("SIGTERM");
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    assertOk(text.includes("data: [DONE]"), "the stream was cut by the shutdown");
    assertEquals((await gateway.child.status).code, 0);

    using kv = await Deno.openKv(kvPath);
    let sum = 0;
    const types = [];
    for await (
      const entry of kv.list<{ amount: number; type: string }>({ prefix: ["ledger", id] })
    ) {
      sum += entry.value.amount;
      types.push(entry.value.type);
    }
    // The stream's cost in an aggregated charge, its budget lease returned at the stop.
    assertEquals(types, ["credit", "lease", "charge", "lease_return"]);
    assertEquals((await kv.get<number>(["balances", id])).value, sum);
    let openHolds = 0;
    for await (const _ of kv.list({ prefix: ["holds"] })) openHolds++;
    assertEquals(openHolds, 0);
    let openLeases = 0;
    for await (const _ of kv.list({ prefix: ["budget_leases"] })) openLeases++;
    assertEquals(openLeases, 0);
    let logged = 0;
    for await (const _ of kv.list({ prefix: ["requests"] })) logged++;
    assertEquals(logged >= 1, true);
  },
);
