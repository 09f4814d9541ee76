/**
 * The account API end to end as an owner's script: a token made in the console's Settings reads
 * the account, its models, keys, usage, requests, tasks and ledger; makes a key that works with
 * the openai SDK, changes, rotates and deletes it; each change is audited as `pat:<token id>`
 * without a secret; nothing the account API does is charged or logged as a request; a member
 * redeems a code once.
 */

import OpenAI from "openai";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import {
  accountApi,
  accountApiGateway,
  assertOpenAIError,
  createAccount,
  memberWithToken,
  MODEL,
} from "../../helpers/account_api.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test(
  "account API: an owner's token reads the account and manages keys; a key made by API works with the openai SDK",
  serverTest,
  async () => {
    await using s = await accountApiGateway();
    const { gw } = s;
    const account = await createAccount(gw, { balance: 5_000_000 });
    const owner = await memberWithToken(gw, account.id, "olga@example.com", "owner");
    const api = accountApi(gw, owner.token);

    const read = await api("GET");
    assertEquals(read.status, 200, JSON.stringify(read.body));
    assertEquals(
      [read.body.id, read.body.balance, read.body.role, read.body.keys],
      [account.id, 5_000_000, "owner", 0],
    );
    const models = (await api("GET", "/models")).body.data;
    assertEquals(models.map((model: { id: string }) => model.id), [MODEL]);
    assertEquals(models[0].price_multiplier, 1);
    assertEquals(models[0].price_paid, models[0].price);
    assertEquals((await api("GET", "/keys")).body, { data: [] });

    const created = await api("POST", "/keys", { name: "web", models: [MODEL], rpm: 100 });
    assertEquals(created.status, 201, JSON.stringify(created.body));
    const key = created.body;
    assertOk(key.key.startsWith("sk-gw-") && key.id.startsWith("key_"));
    assertEquals([key.name, key.models, key.rpm, key.created_by], [
      "web",
      [MODEL],
      100,
      owner.memberId,
    ]);
    const listed = (await api("GET", "/keys")).body.data;
    assertEquals(listed.map((k: Json) => k.id), [key.id]);
    assertOk(!JSON.stringify(listed).includes(key.key), "the secret is shown once");
    assertEquals((await api("GET", `/keys/${key.id}`)).body.name, "web");

    const openai = new OpenAI({ apiKey: key.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const answer = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Hello" }],
    });
    assertOk(answer.choices[0].message.content);
    await gw.settle();

    const patched = await api("PATCH", `/keys/${key.id}`, { name: "web-2", rpm: null });
    assertEquals(patched.status, 200, JSON.stringify(patched.body));
    assertEquals([patched.body.name, patched.body.rpm], ["web-2", null]);

    const rotated = await api("POST", `/keys/${key.id}/rotate`, { grace_seconds: 0 });
    assertEquals(rotated.status, 200, JSON.stringify(rotated.body));
    assertOk(rotated.body.key.startsWith("sk-gw-") && rotated.body.key !== key.key);
    const old = new OpenAI({ apiKey: key.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const refused = await old.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Hello" }],
    }).catch((error) => error);
    assertEquals(refused.status, 401, "grace 0: the old secret stops at once");
    const fresh = new OpenAI({ apiKey: rotated.body.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    await fresh.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Hi" }],
    });
    await gw.settle();

    // Usage, requests, ledger and tasks of the account.
    const usage = await api("GET", "/usage?group_by=key,model&interval=day");
    assertEquals(usage.status, 200, JSON.stringify(usage.body));
    assertEquals(usage.body.group_by, ["key", "model"]);
    assertEquals(usage.body.data.length, 1);
    assertEquals([usage.body.data[0].key_id, usage.body.data[0].model], [key.id, MODEL]);
    assertEquals(usage.body.data[0].requests, 2);
    assertOk(!("channel_id" in usage.body.data[0]), "no channels");
    const total = (await api("GET", "/usage")).body.data;
    assertEquals(total.reduce((sum: number, row: Json) => sum + row.requests, 0), 2);

    const requests = await api("GET", "/requests?limit=10");
    assertEquals(requests.status, 200, JSON.stringify(requests.body));
    assertEquals(requests.body.data.length, 2, JSON.stringify(requests.body));
    assertOk(requests.body.data.every((r: Json) => r.key_id === key.id));
    assertOk(!JSON.stringify(requests.body).includes("channel"), "no channels");
    const first = requests.body.data[0];
    assertEquals((await api("GET", `/requests/${first.id}`)).body.id, first.id);
    assertEquals((await api("GET", `/requests?key=${key.id}`)).body.data.length, 2);
    const paged = await api("GET", "/requests?limit=1");
    assertEquals(paged.body.data.length, 1);
    assertOk(paged.body.cursor, "a cursor to the next page");
    const next = await api("GET", `/requests?limit=1&cursor=${paged.body.cursor}`);
    assertEquals(next.body.data[0].id, requests.body.data[1].id);

    const ledger = await api("GET", "/ledger?order=asc");
    assertEquals(ledger.status, 200, JSON.stringify(ledger.body));
    assertEquals(ledger.body.data[0].type, "credit");
    const spent = ledger.body.data.reduce((sum: number, e: Json) => sum + e.amount, 0);
    const after = await api("GET");
    assertEquals(after.body.balance, spent, "the ledger sums to the wallet's balance");
    const receipts = requests.body.data.reduce((sum: number, r: Json) => sum + r.cost, 0);
    assertEquals(
      after.body.balance,
      5_000_000 - receipts,
      "only the two chat requests were charged",
    );

    assertEquals((await api("GET", "/tasks")).body, { data: [], cursor: null });

    const deleted = await api("DELETE", `/keys/${key.id}`);
    assertEquals(deleted.status, 204);
    assertOpenAIError(await api("GET", `/keys/${key.id}`), 404, "key_not_found");
    assertEquals((await api("GET", "/keys")).body.data, []);
    await gw.settle();
    assertEquals((await api("GET")).body.balance, after.body.balance, "reads charge nothing");
    const logged = (await gw.admin("GET", "/admin/requests?limit=100")).body.data as Json[];
    // Like every refusal, the 404 above is a record; no call that succeeded is.
    assertEquals(
      logged.filter((r) => r.route.startsWith("/v1/account")).map((r) => r.status),
      [404],
    );
    assertEquals(logged.filter((r) => r.route === "/v1/chat/completions").length, 3);

    // Each change audited as the token, without a secret.
    const audit = (await gw.admin("GET", "/admin/audit?actor=pat&limit=100")).body.data as Json[];
    const tokenId = audit[0]?.actor.slice("pat:".length);
    assertOk(tokenId?.startsWith("pat_"), JSON.stringify(audit[0]));
    assertEquals(
      audit.map((r) => `${r.method} ${r.route} ${r.status}`).reverse(),
      [
        "POST /v1/account/keys 201",
        "PATCH /v1/account/keys/:id 200",
        "POST /v1/account/keys/:id/rotate 200",
        "DELETE /v1/account/keys/:id 204",
      ],
    );
    assertEquals(audit.at(-1).target, { kind: "key", id: key.id });
    assertEquals(audit.at(-1).after.name, "web");
    const auditText = JSON.stringify(audit);
    for (const secret of [key.key, rotated.body.key, owner.token]) {
      assertOk(!auditText.includes(secret), "no secret in the audit log");
    }
  },
);

Deno.test(
  "account API: a member redeems a code once (the balance rises once, the ledger names the code); refusals in the OpenAI envelope; audited without the code",
  serverTest,
  async () => {
    await using s = await accountApiGateway();
    const { gw } = s;
    const account = await createAccount(gw, { balance: 1_000 });
    const { token } = await memberWithToken(gw, account.id, "rae@example.com", "member");
    const api = accountApi(gw, token);
    const batch = await gw.admin("POST", "/admin/redemption-batches", {
      name: "launch",
      amount: 2_000_000,
      count: 2,
    });
    assertEquals(batch.status, 201, JSON.stringify(batch.body));
    const [first, second] = batch.body.codes.map((c: Json) => c.code as string);

    const redeemed = await api("POST", "/redeem", { code: ` ${first} ` });
    assertEquals(redeemed.status, 200, JSON.stringify(redeemed.body));
    assertEquals([redeemed.body.amount, redeemed.body.balance], [2_000_000, 2_001_000]);
    assertOpenAIError(await api("POST", "/redeem", { code: first }), 409, "code_redeemed");
    assertOpenAIError(
      await api("POST", "/redeem", { code: "gwr-" + "x".repeat(24) }),
      404,
      "code_not_found",
    );
    assertEquals((await api("GET")).body.balance, 2_001_000, "credited once");
    const ledger = (await api("GET", "/ledger")).body.data as Json[];
    assertEquals(ledger[0].id, redeemed.body.ledger_entry_id);
    assertEquals([ledger[0].type, ledger[0].amount], ["credit", 2_000_000]);

    const missing = assertOpenAIError(await api("POST", "/redeem", {}), 400, "invalid_request");
    assertEquals(missing.param, "code");
    const audit = (await gw.admin("GET", "/admin/audit?actor=pat&limit=10")).body.data as Json[];
    assertEquals(
      audit.map((r) => `${r.route} ${r.status} ${r.error_code}`).reverse(),
      [
        "/v1/account/redeem 200 null",
        "/v1/account/redeem 409 code_redeemed",
        "/v1/account/redeem 404 code_not_found",
        "/v1/account/redeem 400 invalid_request",
      ],
    );
    assertEquals(audit.at(-1).target, { kind: "account", id: account.id });
    assertEquals([audit.at(-1).before.balance, audit.at(-1).after.balance], [1_000, 2_001_000]);
    const text = JSON.stringify(audit);
    assertOk(!text.includes(first) && !text.includes(second), "no code in the audit log");

    // Raced by an owner's and the member's tokens: one credit.
    const ownerToken = (await memberWithToken(gw, account.id, "ola@example.com", "owner")).token;
    const owner = accountApi(gw, ownerToken);
    const raced = await Promise.all(
      Array.from(
        { length: 12 },
        (_, i) => (i % 2 ? api : owner)("POST", "/redeem", { code: second }),
      ),
    );
    assertEquals(raced.filter((answer) => answer.status === 200).length, 1);
    assertOk(raced.every((answer) => [200, 409, 429].includes(answer.status)));
    assertEquals((await api("GET")).body.balance, 4_001_000, "the second code credited once");
  },
);
