/**
 * Balance arithmetic stays exact: a credit or opening balance that would take a balance past
 * ±Number.MAX_SAFE_INTEGER units, or an amount that is not a safe integer, is refused through
 * the admin API with a message saying why, and nothing is written.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { postJson, serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";

const MAX = Number.MAX_SAFE_INTEGER;

Deno.test(
  "balance overflow: a credit past MAX_SAFE_INTEGER is 409 balance_overflow and writes nothing",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const { id } = await gw.createKey({ name: "rich", balance: MAX });
    assertEquals(await gw.balance(id), MAX);

    const over = await gw.admin("POST", `/admin/keys/${id}/credit`, { amount: 1, ref: "inv-1" });
    assertEquals(over.status, 409);
    assertEquals([over.body.error.code, over.body.error.param], ["balance_overflow", "amount"]);
    assertOk(over.body.error.message.includes(String(MAX)), over.body.error.message);
    assertOk(over.body.error.message.includes("nothing was written"), over.body.error.message);
    assertEquals(await gw.balance(id), MAX);
    assertEquals((await gw.ledger(id)).length, 1);

    // The refused credit's ref was not used up: once there is room, the same ref goes through.
    const spend = await gw.admin("POST", `/admin/keys/${id}/credit`, { amount: -10 });
    assertEquals(spend.status, 201);
    const retried = await gw.admin("POST", `/admin/keys/${id}/credit`, { amount: 1, ref: "inv-1" });
    assertEquals([retried.status, retried.body.balance_after], [201, MAX - 9]);
    assertEquals(await gw.assertLedgerInvariant(id), MAX - 9);
  },
);

Deno.test(
  "balance overflow: a debit below -MAX_SAFE_INTEGER is 409 balance_overflow too",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const { id } = await gw.createKey({ name: "debtor" });
    assertEquals(
      (await gw.admin("POST", `/admin/keys/${id}/credit`, { amount: -MAX })).status,
      201,
    );
    const under = await gw.admin("POST", `/admin/keys/${id}/credit`, { amount: -1 });
    assertEquals([under.status, under.body.error.code], [409, "balance_overflow"]);
    assertOk(under.body.error.message.includes(`-${MAX}`), under.body.error.message);
    assertEquals(await gw.assertLedgerInvariant(id), -MAX);
  },
);

Deno.test(
  "balance overflow: amounts, balances and limits that are not safe integers are 400s naming the field",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const { id } = await gw.createKey({ name: "k", balance: 100 });
    const raw = async (path: string, body: string) => {
      const response = await fetch(`${gw.url}${path}`, {
        method: "POST",
        headers: { authorization: "Bearer test-admin-token", "content-type": "application/json" },
        body,
      });
      return { status: response.status, body: await response.json() };
    };
    for (
      const [body, param] of [
        [`{"amount":9007199254740992}`, "amount"],
        [`{"amount":-9007199254740992}`, "amount"],
        [`{"amount":1e400}`, "amount"],
        [`{"amount":1.5}`, "amount"],
        [`{"amount":"5"}`, "amount"],
      ]
    ) {
      const refused = await raw(`/admin/keys/${id}/credit`, body);
      assertEquals([refused.status, refused.body.error.param], [400, param], body);
      assertOk(refused.body.error.message.includes(param), refused.body.error.message);
    }
    const keysBefore = (await gw.admin("GET", "/admin/keys")).body.data.length;
    for (
      const [body, param] of [
        [`{"name":"x","balance":9007199254740992}`, "balance"],
        [`{"name":"x","balance":1e400}`, "balance"],
        [`{"name":"x","credit_limit":1e20}`, "credit_limit"],
        [`{"name":"x","rpm":9007199254740992}`, "rpm"],
      ]
    ) {
      const refused = await raw("/admin/keys", body);
      assertEquals([refused.status, refused.body.error.param], [400, param], body);
    }
    assertEquals((await gw.admin("GET", "/admin/keys")).body.data.length, keysBefore);
    assertEquals(await gw.assertLedgerInvariant(id), 100);
    assertEquals((await gw.ledger(id)).length, 1);
  },
);

Deno.test(
  "balance overflow: a request whose worst case passes exact integer money is a 402, nothing held",
  serverTest,
  async () => {
    await using s = await setupChat({ key: { unlimited: false, credit_limit: 0 } });
    const response = await postJson(s.gw, "/v1/chat/completions", s.key, {
      model: MODEL,
      messages: [{ role: "user", content: "hi" }],
      max_tokens: Number.MAX_SAFE_INTEGER,
    });
    assertEquals(response.status, 402);
    assertEquals((await response.json()).error.code, "insufficient_balance");
    await assertNothingCharged(s, 10_000_000);
  },
);
