/** Two gateway processes on one KV see the same breakers: an opening on one, a reset on the other. */

import { assertEquals } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest, TEST_TEXT_PRICE } from "../../helpers/gateway.ts";
import { type GatewayProcess, spawnGateway } from "../../helpers/gateway_process.ts";
import { tempDir } from "../../helpers/temp_dir.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";

const MODEL = "gpt-test";
const ask = { model: MODEL, messages: [{ role: "user", content: "two instances" }] };

function adminOf(gateway: GatewayProcess) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
}

Deno.test(
  "breakers: a key refused on one instance is skipped by the other; a reset there closes it on both",
  serverTest,
  async () => {
    await using revokedUpstream = startOpenAIChatUpstream();
    await using goodUpstream = startOpenAIChatUpstream();
    revokedUpstream.fault = { kind: "status", status: 401, message: "invalid api key" };
    await using dir = await tempDir();
    const env = {
      GATEWAY_KV: `${dir.path}/g.kv`,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_LOG_REQUESTS: "0",
    };
    await using first = await spawnGateway(env);
    const adminA = adminOf(first);
    await adminA("PUT", `/admin/models/${MODEL}`, { kind: "text", price: TEST_TEXT_PRICE });
    const revoked = (await adminA("POST", "/admin/channels", {
      name: "revoked",
      type: "openai",
      base_url: revokedUpstream.baseUrl,
      keys: ["sk-upstream-test"],
      models: [MODEL],
      priority: 2,
      // A long cooldown: the test reads the state, it never waits for it.
      breaker: { cooldowns_ms: [3_600_000] },
    })).body;
    await adminA("POST", "/admin/channels", {
      name: "good",
      type: "openai",
      base_url: goodUpstream.baseUrl,
      keys: ["sk-upstream-test"],
      models: [MODEL],
      priority: 1,
    });
    const { key } = (await adminA("POST", "/admin/keys", { name: "k", balance: 10_000_000 })).body;
    await using second = await spawnGateway(env);
    const adminB = adminOf(second);

    // Instance A: the 401 opens the key's breaker at once.
    const first401 = await postJson(first, "/v1/chat/completions", key, ask);
    assertEquals(first401.status, 200);
    await first401.body?.cancel();
    assertEquals(revokedUpstream.requests.length, 1);

    // Instance B reads it from the store (its view awaits a read), and routes around it. A
    // writes the opening off the response path, so on a loaded machine B may look first.
    let seen = (await adminB("GET", `/admin/channels/${revoked.id}/breakers`)).body;
    for (let i = 0; i < 200 && seen.keys[0]?.state !== "open"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      seen = (await adminB("GET", `/admin/channels/${revoked.id}/breakers`)).body;
    }
    assertEquals(seen.keys[0].state, "open");
    assertEquals(seen.keys[0].reasons.at(-1).reason, "http_401");
    for (let i = 0; i < 3; i++) {
      const response = await postJson(second, "/v1/chat/completions", key, ask);
      assertEquals(response.status, 200);
      await response.body?.cancel();
    }
    assertEquals(revokedUpstream.requests.length, 1);

    // Reset on B: A sees the breaker closed, and tries the channel again.
    revokedUpstream.fault = undefined;
    const reset = await adminB("POST", `/admin/channels/${revoked.id}/breakers/reset`, {
      key: seen.keys[0].fingerprint,
    });
    assertEquals(reset.status, 200);
    assertEquals(reset.body.reset, [seen.keys[0].fingerprint]);
    assertEquals(
      (await adminA("GET", `/admin/channels/${revoked.id}/breakers`)).body.keys[0].state,
      "closed",
    );
    const again = await postJson(first, "/v1/chat/completions", key, ask);
    assertEquals(again.status, 200);
    assertEquals(again.headers.get("x-gateway-channel"), revoked.id);
    await again.body?.cancel();
    assertEquals(revokedUpstream.requests.length, 2);
  },
);
