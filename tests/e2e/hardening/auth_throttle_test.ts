/**
 * Failed authentication is slowed per client address: after 10 failures in a minute from one
 * address, further failures are 429 with retry-after, in each interface's envelope, while valid
 * credentials from that same address keep working and other addresses are not affected.
 */

import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../../helpers/gateway.ts";
import { spawnGateway } from "../../helpers/gateway_process.ts";
import { tempDir } from "../../helpers/temp_dir.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";

const ask = { model: MODEL, messages: [{ role: "user", content: "hi" }] };
const THRESHOLD = 10;

async function answer(response: Response) {
  // deno-lint-ignore no-explicit-any
  const body: any = await response.json();
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body };
}

Deno.test(
  "auth throttle: from 127.0.0.1, ten bad keys are 401s, then 429 with retry-after on every interface; valid credentials still work",
  serverTest,
  async () => {
    await using s = await setupChat();
    const url = s.gw.url;
    for (let i = 0; i < THRESHOLD; i++) {
      const bad = await answer(await postJson(s.gw, "/v1/chat/completions", `sk-gw-bad${i}`, ask));
      assertEquals([bad.status, bad.body.error.code], [401, "invalid_api_key"], `failure ${i}`);
    }

    // OpenAI envelope
    const chat = await answer(await postJson(s.gw, "/v1/chat/completions", "sk-gw-bad", ask));
    assertEquals(chat.status, 429);
    assertEquals(chat.body.error.code, "auth_rate_limited");
    assertEquals(chat.body.error.type, "rate_limit_error");
    assertOk(Number(chat.retryAfter) >= 1, `retry-after ${chat.retryAfter}`);
    assertOk(chat.body.error.message.includes("valid credentials"), chat.body.error.message);

    // Anthropic envelope; a missing key counts as a failure too
    const messages = await answer(
      await postJson(s.gw, "/v1/messages", null, { ...ask, max_tokens: 5 }, {
        "x-api-key": "sk-ant-wrong",
      }),
    );
    assertEquals(messages.status, 429);
    assertEquals([messages.body.type, messages.body.error.type], ["error", "rate_limit_error"]);
    assertOk(messages.retryAfter);
    const missing = await answer(await postJson(s.gw, "/v1/responses", null, { model: MODEL }));
    assertEquals([missing.status, missing.body.error.code], [429, "auth_rate_limited"]);

    // Gemini envelope
    const gemini = await answer(
      await postJson(s.gw, `/v1beta/models/${MODEL}:generateContent`, null, {
        contents: [{ parts: [{ text: "hi" }] }],
      }, { "x-goog-api-key": "wrong" }),
    );
    assertEquals(gemini.status, 429);
    assertEquals([gemini.body.error.code, gemini.body.error.status], [429, "RESOURCE_EXHAUSTED"]);
    assertOk(gemini.retryAfter);

    // a wrong admin token
    const admin = await answer(
      await fetch(`${url}/admin/keys`, { headers: { authorization: "Bearer not-the-token" } }),
    );
    assertEquals([admin.status, admin.body.error.code], [429, "auth_rate_limited"]);

    // x-forwarded-for is not believed without GATEWAY_TRUST_PROXY: it cannot dodge the block
    const spoofed = await postJson(s.gw, "/v1/chat/completions", "sk-gw-bad", ask, {
      "x-forwarded-for": "198.51.100.7",
    });
    assertEquals(spoofed.status, 429);
    await spoofed.body?.cancel();

    // Valid credentials from the same address are never refused by the throttle.
    const ok = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    assertEquals(ok.status, 200);
    await ok.body?.cancel();
    const models = await fetch(`${url}/v1/models`, {
      headers: { authorization: `Bearer ${s.key}` },
    });
    assertEquals(models.status, 200);
    await models.body?.cancel();
    const keys = await fetch(`${url}/admin/keys`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assertEquals(keys.status, 200);
    await keys.body?.cancel();

    // Only the valid request reached the upstream.
    assertEquals(s.upstream.requests.length, 1);
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);

Deno.test(
  "auth throttle: the failures of one address do not touch another (GATEWAY_TRUST_PROXY=1)",
  serverTest,
  async () => {
    await using dir = await tempDir();
    await using gateway = await spawnGateway({
      GATEWAY_KV: `${dir.path}/g.kv`,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_TRUST_PROXY: "1",
      GATEWAY_LOG_REQUESTS: "0",
    });
    const created = await answer(
      await fetch(`${gateway.url}/admin/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "x-forwarded-for": "192.0.2.1" },
        body: JSON.stringify({ name: "t", balance: 1_000 }),
      }),
    );
    assertEquals(created.status, 201);
    const fromAddress = async (address: string, key: string) => {
      const response = await fetch(`${gateway.url}/v1/models`, {
        headers: {
          authorization: `Bearer ${key}`,
          // a client's own x-forwarded-for entry, then the one the trusted proxy appended
          "x-forwarded-for": `10.10.10.10, ${address}`,
        },
      });
      return await answer(response);
    };
    for (let i = 0; i < THRESHOLD; i++) {
      assertEquals((await fromAddress("203.0.113.5", "sk-gw-wrong")).status, 401);
    }
    const blocked = await fromAddress("203.0.113.5", "sk-gw-wrong");
    assertEquals(blocked.status, 429);
    assertOk(Number(blocked.retryAfter) >= 1);
    // another address behind the same proxy: still a plain 401
    const other = await fromAddress("203.0.113.6", "sk-gw-wrong");
    assertEquals([other.status, other.body.error.code], [401, "invalid_api_key"]);
    // and the blocked address's valid key works
    assertEquals((await fromAddress("203.0.113.5", created.body.key)).status, 200);
    const balance = await answer(
      await fetch(`${gateway.url}/admin/keys/${created.body.id}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      }),
    );
    assertEquals(balance.body.balance, 1_000);
  },
);

Deno.test(
  "auth throttle: a bad key that is throttled is never charged, and its key's owner is not either",
  serverTest,
  async () => {
    await using s = await setupChat();
    for (let i = 0; i < THRESHOLD * 3; i++) {
      const response = await postJson(s.gw, "/v1/chat/completions", `${s.key}x`, ask);
      assertOk(response.status === 401 || response.status === 429, String(response.status));
      await response.body?.cancel();
    }
    assertEquals(s.upstream.requests.length, 0);
    await assertNothingCharged(s, 10_000_000, { untouched: true });
  },
);
