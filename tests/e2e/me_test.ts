/**
 * GET /v1/me, /v1/me/requests and /v1/me/ledger end to end: a key reads its own state with any
 * credential form the model interfaces take, sees only its own records, never channels or
 * upstream URLs, and is charged nothing for it.
 */

import OpenAI from "openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { serverTest } from "../helpers/gateway.ts";
import { MODEL, setupChat } from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function getJson(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.json() };
}

Deno.test(
  "GET /v1/me answers the key's own state for every credential form, charging nothing",
  serverTest,
  async () => {
    await using s = await setupChat({
      balance: 2_000_000,
      key: { name: "self", rpm: 600, expires_at: "2099-01-01T00:00:00Z", models: [MODEL] },
    });
    const me = `${s.gw.url}/v1/me`;
    const forms: Array<[string, string, Record<string, string>]> = [
      ["bearer", me, { authorization: `Bearer ${s.key}` }],
      ["x-api-key", me, { "x-api-key": s.key }],
      ["x-goog-api-key", me, { "x-goog-api-key": s.key }],
      ["?key=", `${me}?key=${s.key}`, {}],
    ];
    for (const [form, url, headers] of forms) {
      const { status, body } = await getJson(url, headers);
      assertEquals(status, 200, `${form}: ${JSON.stringify(body)}`);
      assertEquals(
        {
          id: body.id,
          name: body.name,
          group: body.group,
          balance: body.balance,
          credit_limit: body.credit_limit,
          unlimited: body.unlimited,
          expires_at: body.expires_at,
          rpm: body.rpm,
          models: body.models,
          enabled: body.enabled,
        },
        {
          id: s.keyId,
          name: "self",
          group: "default",
          balance: 2_000_000,
          credit_limit: 0,
          unlimited: false,
          expires_at: "2099-01-01T00:00:00Z",
          rpm: 600,
          models: [MODEL],
          enabled: true,
        },
        form,
      );
      assertOk(!("hash" in body) && !("key" in body), `${form}: ${JSON.stringify(body)}`);
      assertOk(!JSON.stringify(body).includes(s.key), `${form}: the secret is in the answer`);
    }
    // The OpenAI SDK reaches it as any other path under its base URL.
    const viaSdk = await s.client.get<Json>("/me");
    assertEquals(viaSdk.id, s.keyId);
    await assertNothingCharged(s, 2_000_000, { untouched: true });
  },
);

Deno.test(
  "GET /v1/me: a missing or wrong key is 401 in the OpenAI envelope",
  serverTest,
  async () => {
    await using s = await setupChat();
    const missing = await getJson(`${s.gw.url}/v1/me`);
    assertEquals([missing.status, missing.body.error.code], [401, "missing_api_key"]);
    assertOk(missing.body.error.message.includes("x-goog-api-key"));
    const wrong = await getJson(`${s.gw.url}/v1/me/ledger`, { "x-api-key": "sk-gw-nope" });
    assertEquals([wrong.status, wrong.body.error.code], [401, "invalid_api_key"]);
    const badCursor = await getJson(`${s.gw.url}/v1/me/requests?cursor=%%%`, {
      authorization: `Bearer ${s.key}`,
    });
    assertEquals(badCursor.status, 400);
  },
);

Deno.test(
  "GET /v1/me/requests, /ledger and /usage show a key its own records only, without channels",
  serverTest,
  async () => {
    await using s = await setupChat();
    const other = await s.gw.createKey({ name: "other", balance: 3_000_000 });
    const otherClient = new OpenAI({
      apiKey: other.key,
      baseURL: `${s.gw.url}/v1`,
      maxRetries: 0,
    });
    const messages = [{ role: "user" as const, content: "hello" }];
    await s.client.chat.completions.create({ model: MODEL, messages });
    await s.client.chat.completions.create({ model: MODEL, messages });
    await otherClient.chat.completions.create({ model: MODEL, messages });
    await s.gw.settle();

    for (const [keyId, secret, count] of [[s.keyId, s.key, 2], [other.id, other.key, 1]] as const) {
      const headers = { authorization: `Bearer ${secret}` };
      const requests = await getJson(`${s.gw.url}/v1/me/requests?limit=1000`, headers);
      assertEquals(requests.status, 200);
      assertEquals(requests.body.data.length, count, JSON.stringify(requests.body));
      for (const record of requests.body.data) {
        assertEquals([record.key_id, record.model, record.status], [keyId, MODEL, 200]);
        assertOk(!("channel_id" in record) && !("upstream_attempts" in record));
        assertOk(!/ch_|127\.0\.0\.1/.test(JSON.stringify(record)), JSON.stringify(record));
      }
      const ledger = await getJson(`${s.gw.url}/v1/me/ledger?limit=1000&order=asc`, headers);
      assertEquals(ledger.status, 200);
      assertOk(ledger.body.data.length > 0);
      assertOk(ledger.body.data.every((entry: Json) => entry.key_id === keyId));
      const sum = ledger.body.data.reduce((total: number, entry: Json) => total + entry.amount, 0);
      const me = await getJson(`${s.gw.url}/v1/me`, headers);
      assertEquals(sum, me.body.balance);
    }
    // Usage: each key sees its own totals, by model if asked; never a key or channel column.
    for (const [secret, count] of [[s.key, 2], [other.key, 1]] as const) {
      const headers = { "x-api-key": secret };
      const usage = await getJson(`${s.gw.url}/v1/me/usage?group_by=model&interval=day`, headers);
      assertEquals(usage.status, 200, JSON.stringify(usage.body));
      assertEquals(usage.body.data.length, 1, JSON.stringify(usage.body));
      const [row] = usage.body.data;
      assertEquals([row.model, row.requests], [MODEL, count]);
      assertOk(!("key_id" in row) && !("channel_id" in row));
      const me = await getJson(`${s.gw.url}/v1/me`, headers);
      const requests = await getJson(`${s.gw.url}/v1/me/requests?limit=1000`, headers);
      const logged = requests.body.data.reduce((sum: number, r: Json) => sum + r.cost, 0);
      assertEquals(row.cost, logged);
      assertOk(me.status === 200);
    }
    const refused = await getJson(`${s.gw.url}/v1/me/usage?group_by=channel`, {
      authorization: `Bearer ${s.key}`,
    });
    assertEquals(refused.status, 400);
    assertEquals(refused.body.error.param, "group_by");
    // Paging: one a page, then the rest.
    const headers = { authorization: `Bearer ${s.key}` };
    const page1 = await getJson(`${s.gw.url}/v1/me/requests?limit=1`, headers);
    assertEquals(page1.body.data.length, 1);
    assertOk(page1.body.cursor);
    const page2 = await getJson(
      `${s.gw.url}/v1/me/requests?limit=1&cursor=${page1.body.cursor}`,
      headers,
    );
    assertOk(page2.body.data.every((record: Json) => record.key_id === s.keyId));
    assertOk(page2.body.data[0]?.id !== page1.body.data[0].id);
  },
);
