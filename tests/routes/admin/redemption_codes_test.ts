/**
 * The redemption-code admin API over HTTP on a real gateway: a batch's codes shown once (never
 * in later answers, KV or the audit log), code states after redeeming and disabling, the CSV,
 * and every bad input answered 400 in the admin envelope.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { assertAdminError } from "../../helpers/admin_error.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway } from "../../helpers/gateway.ts";

const redeemer = { accountId: "acct_one", walletId: "key_wallet_one", group: "default" };

Deno.test(
  "admin redemption batches: codes shown once, states, disable, CSV, audit",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const created = await gw.admin("POST", "/admin/redemption-batches", {
      name: "black friday",
      amount: 2_000_000,
      count: 3,
      expires_at: expires,
    });
    assertEquals(created.status, 201, JSON.stringify(created.body));
    const { id, codes, ...batch } = created.body;
    assertOk(/^rb_[0-9A-Za-z]+$/.test(id));
    assertEquals(codes.length, 3);
    for (const { id: codeId, code } of codes) {
      assertOk(/^rc_[0-9A-Za-z]+$/.test(codeId));
      assertOk(/^gwr-[0-9A-Za-z]{24}$/.test(code));
    }
    assertEquals([batch.name, batch.amount, batch.count, batch.group, batch.expires_at], [
      "black friday",
      2_000_000,
      3,
      null,
      expires,
    ]);

    const secrets: string[] = codes.map((code: { code: string }) => code.code);
    const noSecret = (text: string) => secrets.every((secret) => !text.includes(secret));

    const redeemed = await gw.running.gateway.redemptions.redeem(secrets[0], redeemer);
    assertEquals(redeemed.amount, 2_000_000);
    const disabled = await gw.admin("POST", `/admin/redemption-codes/${codes[1].id}/disable`);
    assertEquals([disabled.status, disabled.body.state], [200, "disabled"]);
    assertAdminError(
      await gw.admin("POST", `/admin/redemption-codes/${codes[0].id}/disable`),
      409,
      "code_redeemed",
    );

    const read = await gw.admin("GET", `/admin/redemption-batches/${id}`);
    assertEquals(read.body.states, { unused: 1, redeemed: 1, disabled: 1, expired: 0 });
    const list = await gw.admin("GET", "/admin/redemption-batches");
    assertEquals(list.body.data.map((b: { id: string }) => b.id), [id]);
    const all = await gw.admin("GET", `/admin/redemption-batches/${id}/codes`);
    assertEquals(all.body.data.length, 3);
    const used = await gw.admin("GET", `/admin/redemption-batches/${id}/codes?state=redeemed`);
    assertEquals(used.body.data.map((c: { id: string }) => c.id), [codes[0].id]);
    assertEquals(used.body.data[0].redeemed_by, "acct_one");
    assertEquals(used.body.data[0].wallet_id, "key_wallet_one");
    const firstPage = await gw.admin("GET", `/admin/redemption-batches/${id}/codes?limit=2`);
    assertEquals(firstPage.body.data.length, 2);
    const secondPage = await gw.admin(
      "GET",
      `/admin/redemption-batches/${id}/codes?limit=2&cursor=${firstPage.body.cursor}`,
    );
    assertEquals(secondPage.body.data.length, 1);
    assertEquals(secondPage.body.cursor, null);

    const csv = await fetch(`${gw.url}/admin/redemption-batches/${id}/codes.csv`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assertEquals(csv.status, 200);
    assertOk(csv.headers.get("content-type")!.startsWith("text/csv"));
    const text = await csv.text();
    const lines = text.trimEnd().split("\r\n");
    assertEquals(lines[0], "id,state,redeemed_by,redeemed_at");
    assertEquals(lines.length, 4);
    assertOk(
      lines.includes(`${codes[0].id},redeemed,acct_one,${redeemed.ledger_entry.at}`) ||
        lines.some((line) => line.startsWith(`${codes[0].id},redeemed,acct_one,`)),
    );
    assertOk(lines.includes(`${codes[1].id},disabled,,`));
    assertOk(lines.includes(`${codes[2].id},unused,,`));

    const off = await gw.admin("POST", `/admin/redemption-batches/${id}/disable`);
    assertEquals(off.body.states, { unused: 0, redeemed: 1, disabled: 2, expired: 0 });

    // The codes are nowhere but in the 201: not in reads, not in KV, not in the audit log.
    for (const answer of [read, list, all, off]) assertOk(noSecret(JSON.stringify(answer.body)));
    assertOk(noSecret(text));
    const audit = await gw.admin("GET", "/admin/audit?limit=100");
    assertOk(noSecret(JSON.stringify(audit.body)));
    const createRecord = audit.body.data.find((record: { route: string; method: string }) =>
      record.method === "POST" && record.route === "/admin/redemption-batches"
    );
    assertEquals(createRecord.target, { kind: "redemption_batch", id });
    assertEquals(createRecord.after.name, "black friday");
    assertOk(
      audit.body.data.some((record: { route: string }) =>
        record.route === "/admin/redemption-codes/:id/disable"
      ),
    );
    for await (const entry of gw.running.gateway.kv.list({ prefix: [] })) {
      assertOk(noSecret(JSON.stringify(entry)), `a code in clear at ${JSON.stringify(entry.key)}`);
    }
  },
);

Deno.test(
  "admin redemption batches: bad inputs are 400 in the admin envelope and make nothing",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const good = { name: "n", amount: 100, count: 1 };
    const bad: Array<Record<string, unknown>> = [
      { ...good, amount: 0 },
      { ...good, amount: -5 },
      { ...good, amount: 1.5 },
      { ...good, amount: "100" },
      { ...good, count: 0 },
      { ...good, count: 1001 },
      { ...good, expires_at: "tomorrow" },
      { ...good, expires_at: "2020-01-01T00:00:00Z" },
      { ...good, name: "" },
      { ...good, group: "" },
      { ...good, extra: true },
      { amount: 100, count: 1 },
    ];
    for (const body of bad) {
      const answer = await gw.admin("POST", "/admin/redemption-batches", body);
      assertAdminError(answer, 400, answer.body?.error?.code ?? "");
      assertEquals(answer.body.error.type, "invalid_request_error", JSON.stringify(body));
    }
    assertEquals((await gw.admin("GET", "/admin/redemption-batches")).body.data, []);
    assertAdminError(
      await gw.admin("GET", "/admin/redemption-batches/rb_nope"),
      404,
      "batch_not_found",
    );
    assertAdminError(
      await gw.admin("GET", "/admin/redemption-batches/nope"),
      404,
      "batch_not_found",
    );
    assertAdminError(
      await gw.admin("POST", "/admin/redemption-codes/rc_nope/disable"),
      404,
      "code_not_found",
    );
    const { body } = await gw.admin("POST", "/admin/redemption-batches", good);
    assertAdminError(
      await gw.admin("GET", `/admin/redemption-batches/${body.id}/codes?state=lost`),
      400,
      "invalid_request",
    );
  },
);
