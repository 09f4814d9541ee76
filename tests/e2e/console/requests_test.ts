/**
 * The console's Requests pages over HTTP: the operator's filtered list (key, status, model,
 * interface, time range), a bad filter answered 400 as a page, a request's receipt and attempts,
 * the CSV / JSON Lines export of the filtered list; the holder's own requests only, without
 * channels or upstream data; and none of it charges anything.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";

const ask = { model: MODEL, messages: [{ role: "user", content: "hi" }] };

/** Makes one chat request with `key` and returns its request id. */
async function chatWith(url: string, key: string): Promise<string> {
  const response = await postJson({ url }, "/v1/chat/completions", key, ask);
  await response.body?.cancel();
  return response.headers.get("x-request-id")!;
}

async function text(response: Promise<Response>): Promise<{ status: number; html: string }> {
  const answer = await response;
  return { status: answer.status, html: await answer.text() };
}

Deno.test(
  "console requests: the operator filters the list, reads a receipt and exports; nothing charged",
  serverTest,
  async () => {
    await using s = await setupChat();
    const other = await s.gw.createKey({ name: "other", balance: 5_000_000 });
    const mine = await chatWith(s.gw.url, s.key);
    const theirs = await chatWith(s.gw.url, other.key);
    const refused = await postJson(s.gw, "/v1/chat/completions", s.key, { model: "nope" });
    await refused.body?.cancel();
    const refusedId = refused.headers.get("x-request-id")!;
    await s.gw.settle();
    const opening = await s.gw.balance(s.keyId);

    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const all = await text(client.get("/console/requests"));
    assertEquals(all.status, 200);
    for (const id of [mine, theirs, refusedId]) assertOk(all.html.includes(id), `${id} listed`);
    assertOk(all.html.includes("Copy as curl"), "the curl");

    const byKey = await text(client.get(`/console/requests?key=${other.id}`));
    assertOk(byKey.html.includes(theirs) && !byKey.html.includes(mine), "filtered by key");
    const failed = await text(client.get("/console/requests?status=4xx"));
    assertOk(failed.html.includes(refusedId) && !failed.html.includes(mine), "status class");
    const byInterface = await text(client.get("/console/requests?interface=anthropic"));
    assertOk(!byInterface.html.includes(mine), "interface");
    const future = await text(client.get("/console/requests?since=2099-01-01T00%3A00"));
    assertOk(future.html.includes("No request matches"), "a datetime-local time read as UTC");
    const page = await text(client.get("/console/requests?limit=1"));
    assertOk(page.html.includes('rel="next"'), "paging");

    const bad = await text(client.get("/console/requests?status=abc"));
    assertEquals(bad.status, 400);
    assertOk(bad.html.includes("status class"), bad.html);
    const badKey = await text(client.get("/console/requests?key=nobody"));
    assertEquals(badKey.status, 400);

    const detail = await text(client.get(`/console/requests/${mine}`));
    assertEquals(detail.status, 200);
    const record = (await s.gw.admin("GET", `/admin/requests/${mine}`)).body;
    assertOk(detail.html.includes(record.receipt.formula), "formula");
    for (const id of record.receipt.ledger_entry_ids) assertOk(detail.html.includes(id), id);
    assertOk(detail.html.includes(record.channel_id), "the attempt's channel");
    assertEquals((await text(client.get("/console/requests/req_nothere"))).status, 404);

    const csv = await client.get(`/console/requests/export?key=${s.keyId}&format=csv`);
    assertEquals(csv.headers.get("content-type"), "text/csv; charset=utf-8");
    const csvText = await csv.text();
    assertOk(csvText.includes(mine) && !csvText.includes(theirs), "CSV of the filter");
    const jsonl = await (await client.get(`/console/requests/export?key=${s.keyId}`)).text();
    const ids = jsonl.trim().split("\n").map((line) => JSON.parse(line).id);
    assertEquals(ids.sort(), [mine, refusedId].sort());
    await assertNothingCharged(s, opening);
  },
);

Deno.test(
  "console requests: a holder sees only its own requests with receipts, never channels",
  serverTest,
  async () => {
    await using s = await setupChat();
    const other = await s.gw.createKey({ name: "other", balance: 5_000_000 });
    const mine = await chatWith(s.gw.url, s.key);
    const theirs = await chatWith(s.gw.url, other.key);
    await s.gw.settle();
    const record = (await s.gw.admin("GET", `/admin/requests/${mine}`)).body;

    const client = consoleClient(s.gw.url);
    await (await client.signIn(s.key)).body?.cancel();
    const list = await text(client.get("/console/requests"));
    assertEquals(list.status, 200);
    assertOk(list.html.includes(mine) && !list.html.includes(theirs), "own requests only");
    assertOk(!list.html.includes('id="channel"'), "no channel filter");

    const detail = await text(client.get(`/console/requests/${mine}`));
    assertEquals(detail.status, 200);
    for (const id of record.receipt.ledger_entry_ids) assertOk(detail.html.includes(id), id);
    assertOk(!detail.html.includes(record.channel_id), "no channel");
    assertOk(
      !detail.html.includes("Attempts") && !detail.html.includes(s.upstream.baseUrl),
      "no upstream",
    );

    assertEquals((await text(client.get(`/console/requests/${theirs}`))).status, 404);
    assertEquals((await text(client.get("/console/requests/export"))).status, 403);
    assertEquals((await text(client.get("/console/requests?since=yesterday"))).status, 400);
  },
);
