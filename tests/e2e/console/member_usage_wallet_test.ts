/**
 * The token management area's dashboard, usage and wallet over HTTP: requests of the account's
 * keys with their receipts (no channel, no upstream), filters by key and time, the CSV and JSON
 * Lines exports of every page, the ledger with the balance after each entry and its key, Redeem a
 * code for owners only; ids of another account are 404.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import { textOf } from "../../helpers/member_console.ts";
import { shownAmount } from "../../helpers/console_money.ts";
import { chatWith, MODELS, startMemberArea } from "../../helpers/member_area.ts";

Deno.test(
  "member usage: requests with receipts, filters, CSV and JSON Lines exports; the dashboard's spend; ids of another account are 404",
  serverTest,
  async () => {
    await using area = await startMemberArea();
    const { gw } = area;
    const owner = await area.member("kim@example.com", "owner");
    const plain = await area.member("lee@example.com", "member");
    const made = async (client: typeof owner, name: string) => {
      const response = await client.postMember("/console/account/keys", {
        name,
        enabled: "true",
      });
      await response.body?.cancel();
      const id = response.headers.get("location")!.split("/")[4];
      const secret = textOf(
        await (await client.get(`/console/account/keys/${id}/created`)).text(),
        "secret",
      );
      return { id, secret };
    };
    const first = await made(owner, "first app");
    const second = await made(plain, "second app");
    for (let i = 0; i < 3; i++) assertEquals((await chatWith(gw, first.secret)).status, 200);
    assertEquals((await chatWith(gw, second.secret, MODELS[1])).status, 200);
    await gw.settle();
    const logged = (await gw.admin("GET", `/admin/requests?key=${first.id}`)).body.data;
    assertEquals(logged.length, 3);
    const channelId = logged[0].channel_id;
    assertOk(channelId, "the operator sees the channel");

    const usage = await (await plain.get("/console/account/usage")).text();
    assertEquals((usage.match(/href="\/console\/account\/requests\/req_/g) ?? []).length, 4);
    assertOk(!usage.includes(channelId), "no channel on the usage page");
    const filtered = await (await owner.get(`/console/account/usage?key=${second.id}`)).text();
    assertEquals((filtered.match(/href="\/console\/account\/requests\/req_/g) ?? []).length, 1);
    const future = await (await owner.get("/console/account/usage?since=2999-01-01T00:00"))
      .text();
    assertOk(future.includes("No request in this range."));
    const badTime = await owner.get("/console/account/usage?since=yesterday");
    assertEquals(badTime.status, 400);
    assertOk((await badTime.text()).includes("since must be a time"));

    const detail = await owner.get(`/console/account/requests/${logged[0].id}`);
    const html = await detail.text();
    assertEquals(detail.status, 200);
    assertOk(html.includes('id="receipt-heading"') && html.includes("Formula"), "the receipt");
    assertOk(!html.includes(channelId) && !html.includes("Attempts"), "no channel or upstream");

    const csv = await owner.get("/console/account/usage/export?format=csv");
    assertEquals(csv.status, 200);
    assertOk(csv.headers.get("content-disposition")?.includes("requests.csv"));
    const lines = (await csv.text()).trim().split("\r\n");
    assertOk(lines[0].startsWith("id,at,interface,route,key_id,model,status"), lines[0]);
    assertOk(!lines[0].includes("channel_id"));
    assertEquals(lines.length, 5, "a header and 4 requests");
    assertOk(lines.slice(1).every((line) => !line.includes(channelId)));
    const jsonl = await owner.get(
      `/console/account/usage/export?format=jsonl&key=${first.id}&order=asc`,
    );
    const records = (await jsonl.text()).trim().split("\n").map((line) => JSON.parse(line));
    assertEquals(records.length, 3);
    assertOk(records.every((record) => record.key_id === first.id && record.receipt));
    assertOk(
      records.every((record) => !("channel_id" in record) && !("upstream_attempts" in record)),
    );
    assertEquals(records.map((r) => r.id), logged.map((r: { id: string }) => r.id).reverse());

    const dashboard = await (await owner.get("/console/account")).text();
    const spent = logged.reduce((sum: number, r: { cost: number }) => sum + r.cost, 0);
    assertOk(spent > 0);
    assertOk(dashboard.includes("Spend by key") && dashboard.includes("first app"));
    assertOk(dashboard.includes("Spend by model") && dashboard.includes(MODELS[1]));
    const balance = (await gw.admin("GET", `/admin/accounts/${area.accountId}`)).body.balance;
    assertOk(textOf(dashboard, "balance").length > 0);
    assertEquals(
      Number(textOf(dashboard, "balance").replace(/[$,.]/g, "")),
      balance,
      "the wallet's balance",
    );
    assertOk(textOf(dashboard, "spend-30") !== "$0.000000", "30 days' spend");

    const other = await area.account("other co");
    const stranger = await area.member("max@example.com", "owner", other);
    for (
      const path of [
        `/console/account/requests/${logged[0].id}`,
        `/console/account/usage?key=${first.id}`,
        `/console/account/usage/export?format=csv&key=${first.id}`,
      ]
    ) {
      const response = await stranger.get(path);
      assertEquals(response.status, 404, path);
      await response.body?.cancel();
    }
    const theirs = await (await stranger.get("/console/account/usage/export?format=jsonl")).text();
    assertEquals(theirs, "", "another account's export is empty");
  },
);

Deno.test(
  "member wallet: the ledger with the balance after each entry and its key; any member may Redeem a code and a refusal changes nothing",
  serverTest,
  async () => {
    await using area = await startMemberArea();
    const { gw } = area;
    const owner = await area.member("kim@example.com", "owner");
    const plain = await area.member("lee@example.com", "member");
    const created = await owner.postMember("/console/account/keys", {
      name: "ledger app",
      enabled: "true",
    });
    await created.body?.cancel();
    const id = created.headers.get("location")!.split("/")[4];
    const secret = textOf(
      await (await owner.get(`/console/account/keys/${id}/created`)).text(),
      "secret",
    );
    assertEquals((await chatWith(gw, secret)).status, 200);
    await gw.settle();
    const credited = await gw.admin("POST", `/admin/accounts/${area.accountId}/credit`, {
      amount: 2_000_000,
      note: "top-up",
    });
    assertEquals(credited.status, 201, JSON.stringify(credited.body));

    const wallet = await owner.get("/console/account/wallet");
    const html = await wallet.text();
    assertEquals(wallet.status, 200);
    const entries = (await gw.admin("GET", `/admin/accounts/${area.accountId}/ledger?limit=100`))
      .body.data;
    assertOk(entries.length >= 3, JSON.stringify(entries));
    for (const entry of entries) {
      assertOk(html.includes(`<td>${shownAmount(entry.balance_after)}</td>`), entry.id);
    }
    assertOk(html.includes(">ledger app</a></td>"), "the key an entry names, linked");
    assertOk(html.includes("top-up"));
    assertOk(html.includes('action="/console/account/wallet/redeem"'), "the redeem form");
    const memberWallet = await (await plain.get("/console/account/wallet")).text();
    assertOk(
      memberWallet.includes('action="/console/account/wallet/redeem"'),
      "members redeem too",
    );

    const balance = async () =>
      (await gw.admin("GET", `/admin/accounts/${area.accountId}`)).body.balance;
    const before = await balance();
    const byMember = await plain.postMember("/console/account/wallet/redeem", { code: "ABC" });
    assertEquals(byMember.status, 404, "a member may redeem; an unknown code is refused");
    await byMember.body?.cancel();
    const empty = await owner.postMember("/console/account/wallet/redeem", { code: " " });
    assertEquals(empty.status, 400);
    assertOk((await empty.text()).includes("Enter a code"));
    const unknown = await owner.postMember("/console/account/wallet/redeem", {
      code: "NOT-A-REAL-CODE",
    });
    assertOk(unknown.status >= 400 && unknown.status < 500, String(unknown.status));
    assertOk((await unknown.text()).includes('role="alert"'), "the form says why");
    assertEquals(await balance(), before, "nothing credited");
  },
);

Deno.test({
  name:
    "member wallet: an owner redeems a code in the console once; the balance rises once and the ledger shows it",
  ...serverTest,
  async fn() {
    await using area = await startMemberArea();
    const { gw } = area;
    const owner = await area.member("kim@example.com", "owner");
    const batch = await gw.admin("POST", "/admin/redemption-batches", {
      name: "welcome",
      amount: 3_000_000,
      count: 1,
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    assertEquals(batch.status, 201, JSON.stringify(batch.body));
    const code = batch.body.codes[0].code as string;
    const balance = async () =>
      (await gw.admin("GET", `/admin/accounts/${area.accountId}`)).body.balance;
    const before = await balance();

    const redeemed = await owner.postMember("/console/account/wallet/redeem", { code });
    await redeemed.body?.cancel();
    assertEquals(redeemed.status, 303);
    const page = await (await owner.get(redeemed.headers.get("location")!)).text();
    assertOk(page.includes("The code is redeemed: $3.000000 added"), "the notice");
    assertEquals(await balance(), before + 3_000_000);
    const again = await owner.postMember("/console/account/wallet/redeem", { code });
    assertEquals(again.status, 409);
    assertOk((await again.text()).includes('role="alert"'));
    assertEquals(await balance(), before + 3_000_000, "credited once");
    const audit = JSON.stringify((await gw.admin("GET", "/admin/audit?target_kind=account")).body);
    assertOk(audit.includes("/console/account/wallet/redeem") && !audit.includes(code));
  },
});
