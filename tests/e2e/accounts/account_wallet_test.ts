/**
 * Accounts and their one wallet, end to end: keys of one account pay from it, a key's caps still
 * refuse it alone, a suspended account's keys are refused in each interface's envelope, and the
 * wallet never goes below its floor under concurrency on two instances.
 */

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  serverTest,
  startTestGateway,
  TEST_TEXT_PRICE,
  type TestGateway,
} from "../../helpers/gateway.ts";
import { assertAdminError } from "../../helpers/admin_error.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const MODEL = "gpt-test";

async function gatewayWithChannel(env: Record<string, string> = {}) {
  const upstream = startOpenAIChatUpstream();
  const gw = await startTestGateway(env);
  await gw.putModel(MODEL, { kind: "text", price: TEST_TEXT_PRICE });
  await gw.addChannel({
    name: "sim",
    type: "openai",
    base_url: upstream.baseUrl,
    keys: ["sk-upstream-test"],
    models: [MODEL],
  });
  return {
    gw,
    upstream,
    async [Symbol.asyncDispose]() {
      await gw.close();
      await upstream[Symbol.asyncDispose]();
    },
  };
}

async function createAccount(gw: TestGateway, input: Record<string, unknown>): Promise<Json> {
  const created = await gw.admin("POST", "/admin/accounts", { name: "acme", ...input });
  assertEquals(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

async function keyIn(gw: TestGateway, accountId: string, input: Record<string, unknown> = {}) {
  const created = await gw.admin("POST", "/admin/keys", {
    name: "app",
    account_id: accountId,
    ...input,
  });
  assertEquals(created.status, 201, JSON.stringify(created.body));
  return created.body as Json;
}

async function accountLedger(gw: TestGateway, accountId: string): Promise<Json[]> {
  const entries: Json[] = [];
  let cursor: string | null = null;
  do {
    const page: Json = await gw.admin(
      "GET",
      `/admin/accounts/${accountId}/ledger?order=asc&limit=1000${
        cursor ? `&cursor=${cursor}` : ""
      }`,
    );
    assertEquals(page.status, 200, JSON.stringify(page.body));
    entries.push(...page.body.data);
    cursor = page.body.cursor;
  } while (cursor);
  return entries;
}

async function assertWalletVerified(gw: TestGateway, accountId: string): Promise<Json> {
  await gw.settle();
  const verified = await gw.admin("GET", `/admin/accounts/${accountId}/ledger/verify`);
  assertEquals(verified.status, 200, JSON.stringify(verified.body));
  assertOk(verified.body.ok, JSON.stringify(verified.body));
  return verified.body;
}

const ask = { model: MODEL, messages: [{ role: "user" as const, content: "Hello" }] };

Deno.test(
  "accounts: two keys pay from one wallet, debited by the sum of their receipts; each entry names its key",
  serverTest,
  async () => {
    await using s = await gatewayWithChannel();
    const account = await createAccount(s.gw, { balance: 5_000_000 });
    assertEquals(account.balance, 5_000_000);
    assertOk(account.wallet_id === account.id);
    const first = await keyIn(s.gw, account.id, { name: "web" });
    const second = await keyIn(s.gw, account.id, { name: "batch" });
    assertEquals([first.account_id, first.balance], [account.id, 5_000_000]);
    const openai = new OpenAI({ apiKey: first.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: second.key, baseURL: s.gw.url, maxRetries: 0 });
    for (let i = 0; i < 3; i++) await openai.chat.completions.create(ask);
    for (let i = 0; i < 2; i++) {
      await anthropic.messages.create({ ...ask, max_tokens: 100 });
    }
    await s.gw.settle();
    const requests = (await s.gw.admin("GET", "/admin/requests?limit=100")).body.data as Json[];
    assertEquals(requests.length, 5);
    const receipts = requests.reduce((sum, record) => sum + record.cost, 0);
    assertOk(receipts > 0);
    const view = (await s.gw.admin("GET", `/admin/accounts/${account.id}`)).body;
    assertEquals(view.balance, 5_000_000 - receipts);
    assertEquals(view.keys, 2);
    const verified = await assertWalletVerified(s.gw, account.id);
    assertEquals(verified.balance, 5_000_000 - receipts);
    const entries = await accountLedger(s.gw, account.id);
    const charges = entries.filter((entry) => entry.type === "charge" || entry.type === "settle");
    const byKey = new Map<string, number>();
    for (const entry of charges) {
      byKey.set(entry.key_id, (byKey.get(entry.key_id) ?? 0) + (entry.requests ?? 1));
    }
    assertEquals(byKey.get(first.id), 3);
    assertEquals(byKey.get(second.id), 2);
    assertEquals(entries[0].type, "credit");
    assertEquals(entries[0].key_id, null);
    // Every key of the account shows the wallet's balance.
    const keyView = (await s.gw.admin("GET", `/admin/keys/${second.id}`)).body;
    assertEquals(keyView.balance, view.balance);
    const keys = (await s.gw.admin("GET", `/admin/accounts/${account.id}/keys`)).body.data;
    assertEquals(keys.map((key: Json) => key.name).sort(), ["batch", "web"]);
  },
);

Deno.test(
  "accounts: a key's spend cap refuses that key while the account's other key still works",
  serverTest,
  async () => {
    await using s = await gatewayWithChannel();
    const account = await createAccount(s.gw, { balance: 5_000_000 });
    const capped = await keyIn(s.gw, account.id, { spend_limits: { day: 1 } });
    const free = await keyIn(s.gw, account.id);
    const cappedClient = new OpenAI({
      apiKey: capped.key,
      baseURL: `${s.gw.url}/v1`,
      maxRetries: 0,
    });
    const freeClient = new OpenAI({ apiKey: free.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const refused = await cappedClient.chat.completions.create(ask).catch((error) => error);
    assertEquals(refused.status, 402, String(refused));
    assertEquals(refused.code ?? refused.error?.code, "spend_limit_exceeded");
    const answer = await freeClient.chat.completions.create(ask);
    assertOk(answer.choices[0].message.content);
    await assertWalletVerified(s.gw, account.id);
  },
);

Deno.test(
  "accounts: a suspended account's keys are refused 403 account_disabled in each interface's envelope, nothing charged; resumed, they work",
  serverTest,
  async () => {
    await using s = await gatewayWithChannel();
    const account = await createAccount(s.gw, { balance: 1_000_000 });
    const key = await keyIn(s.gw, account.id);
    const suspended = await s.gw.admin("POST", `/admin/accounts/${account.id}/suspend`);
    assertEquals([suspended.status, suspended.body.enabled], [200, false]);
    const openai = new OpenAI({ apiKey: key.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const refused = await openai.chat.completions.create(ask).catch((error) => error);
    assertEquals(refused.status, 403);
    assertEquals(refused.error?.code, "account_disabled");
    assertEquals(refused.error?.type, "permission_error");
    const anthropic = new Anthropic({ apiKey: key.key, baseURL: s.gw.url, maxRetries: 0 });
    const anthropicRefusal = await anthropic.messages.create({ ...ask, max_tokens: 10 })
      .catch((error) => error);
    assertEquals(anthropicRefusal.status, 403);
    assertEquals(anthropicRefusal.error?.type, "error");
    assertEquals(anthropicRefusal.error?.error?.type, "permission_error");
    const gemini = await fetch(
      `${s.gw.url}/v1beta/models/${MODEL}:generateContent`,
      {
        method: "POST",
        headers: { "x-goog-api-key": key.key, "content-type": "application/json" },
        body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }),
      },
    );
    const geminiBody = await gemini.json();
    assertEquals([gemini.status, geminiBody.error?.status], [403, "PERMISSION_DENIED"]);
    const verified = await assertWalletVerified(s.gw, account.id);
    assertEquals([verified.balance, verified.entries], [1_000_000, 1]);
    await s.gw.admin("POST", `/admin/accounts/${account.id}/resume`);
    assertOk((await openai.chat.completions.create(ask)).choices.length);
  },
);

Deno.test(
  "accounts: bad input is a 400 in the admin envelope, and nothing is made",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    for (
      const body of [
        {},
        { name: "" },
        { name: "x", balance: -1 },
        { name: "x", credit_limit: 1.5 },
        { name: "x", unlimited: "yes" },
        { name: "x", owner: "someone" },
      ]
    ) {
      assertAdminError(await gw.admin("POST", "/admin/accounts", body), 400, "invalid_request");
    }
    assertEquals((await gw.admin("GET", "/admin/accounts")).body.data, []);
    const account = await createAccount(gw, {});
    for (const field of ["balance", "credit_limit", "unlimited", "group"]) {
      const value = field === "unlimited" ? true : field === "group" ? "vip" : 5;
      assertAdminError(
        await gw.admin("POST", "/admin/keys", {
          name: "k",
          account_id: account.id,
          [field]: value,
        }),
        400,
        "invalid_request",
      );
    }
    assertAdminError(
      await gw.admin("POST", "/admin/keys", { name: "k", account_id: "acct_missing" }),
      400,
      "invalid_request",
    );
    assertEquals((await gw.admin("GET", "/admin/keys")).body.data, []);
    assertAdminError(
      await gw.admin("GET", "/admin/accounts/acct_missing"),
      404,
      "account_not_found",
    );
    assertAdminError(await gw.admin("GET", "/admin/accounts/key_1"), 404, "account_not_found");
    assertAdminError(
      await gw.admin("PATCH", `/admin/accounts/${account.id}`, { credit_limit: -5 }),
      400,
      "invalid_request",
    );
    assertAdminError(
      await gw.admin("POST", `/admin/accounts/${account.id}/credit`, { amount: 0 }),
      400,
      "invalid_request",
    );
  },
);

Deno.test("accounts: the list searches by name and sorts by balance", serverTest, async () => {
  await using gw = await startTestGateway();
  await createAccount(gw, { name: "Alpha Labs", balance: 30 });
  await createAccount(gw, { name: "Beta Corp", balance: 10 });
  await createAccount(gw, { name: "alphabet", balance: 20 });
  const found = (await gw.admin("GET", "/admin/accounts?q=ALPHA&sort=balance")).body.data;
  assertEquals(found.map((account: Json) => account.name), ["Alpha Labs", "alphabet"]);
  const ascending = (await gw.admin("GET", "/admin/accounts?sort=balance&order=asc&limit=2")).body;
  assertEquals(ascending.data.map((account: Json) => account.balance), [10, 20]);
  const next = (await gw.admin(
    "GET",
    `/admin/accounts?sort=balance&order=asc&limit=2&cursor=${ascending.cursor}`,
  )).body;
  assertEquals(next.data.map((account: Json) => account.balance), [30]);
  assertEquals(next.cursor, null);
  assertAdminError(await gw.admin("GET", "/admin/accounts?sort=color"), 400, "invalid_request");
});

Deno.test(
  "accounts: 200 concurrent requests over 5 keys of one account with a small wallet, on two instances, never go below the floor",
  serverTest,
  async () => {
    await using s = await gatewayWithChannel();
    await using other = await startTestGateway({ GATEWAY_KV: s.gw.kvPath });
    const account = await createAccount(s.gw, { balance: 2_000, credit_limit: 500 });
    const keys = await Promise.all(
      Array.from({ length: 5 }, (_, i) => keyIn(s.gw, account.id, { name: `k${i}` })),
    );
    const gateways = [s.gw, other];
    const outcomes = await Promise.all(Array.from({ length: 200 }, async (_, i) => {
      const client = new OpenAI({
        apiKey: keys[i % 5].key,
        baseURL: `${gateways[i % 2].url}/v1`,
        maxRetries: 0,
      });
      return await client.chat.completions.create({ ...ask, max_tokens: 20 }).then(
        () => 200,
        (error) => error.status as number,
      );
    }));
    await other.settle();
    const verified = await assertWalletVerified(s.gw, account.id);
    assertOk(verified.balance >= -500, `wallet at ${verified.balance}, below its floor of -500`);
    assertOk(outcomes.includes(200) && outcomes.includes(402), JSON.stringify(outcomes));
    assertOk(
      outcomes.every((status) => status === 200 || status === 402),
      JSON.stringify(outcomes),
    );
    const entries = await accountLedger(s.gw, account.id);
    const billed = entries.filter((entry) => entry.type === "charge" || entry.type === "settle")
      .reduce((sum, entry) => sum + (entry.requests ?? 1), 0);
    assertEquals(billed, outcomes.filter((status) => status === 200).length);
  },
);

Deno.test(
  "accounts: a key list filtered by group follows the account's group",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const account = await createAccount(gw, {});
    const key = await keyIn(gw, account.id);
    await gw.admin("PATCH", `/admin/accounts/${account.id}`, { group: "vip" });
    const vip = (await gw.admin("GET", "/admin/keys?group=vip")).body.data;
    assertEquals(vip.map((view: Json) => view.id), [key.id]);
    assertEquals(vip[0].group, "vip");
    assertEquals((await gw.admin("GET", "/admin/keys?group=default")).body.data, []);
    const sorted = (await gw.admin("GET", "/admin/keys?group=vip&sort=last_used")).body.data;
    assertEquals(sorted.map((view: Json) => view.id), [key.id]);
  },
);
