/**
 * The console's breakers: the list and the detail show a key's open breaker with its reason; the
 * Reset button needs the session's CSRF token, closes it, and is audited as the console's.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";

const ask = { model: MODEL, messages: [{ role: "user", content: "hi" }] };

Deno.test(
  "console breakers: a refused key's open breaker is listed and shown; Reset (CSRF) closes it, audited",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    s.upstream.fault = { kind: "status", status: 401, message: "invalid api key" };
    const refused = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    await refused.body?.cancel();
    assertEquals(refused.status, 502);
    const channel = (await s.gw.admin("GET", "/admin/channels")).body.data[0];
    assertEquals(channel.breakers.keys[0].state, "open");

    // The one key's breaker is open: the next request is skipped at no cost, a 503 with
    // retry-after, and its record names the skip.
    const skipped = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    await skipped.body?.cancel();
    assertEquals(skipped.status, 503);
    assertOk(Number(skipped.headers.get("retry-after")) > 0);
    assertEquals(s.upstream.requests.length, 1);
    await s.gw.settle();
    const record = await (
      await client.get(`/console/requests/${skipped.headers.get("x-request-id")}`)
    ).text();
    assertOk(record.includes("skipped: breaker_open"), "the attempt names the skip");

    const list = await (await client.get("/console/channels")).text();
    assertOk(
      list.includes(`key ${channel.breakers.keys[0].fingerprint} open until`) &&
        list.includes("(http_401)"),
      "the list names the key out, its cooldown end and reason",
    );
    const detailPage = await client.get(`/console/channels/${channel.id}`);
    const detail = await detailPage.text();
    assertOk(detail.includes(`key ${channel.breakers.keys[0].fingerprint}`));
    assertOk(detail.includes("open until"), "the detail shows the cooldown's end");
    assertOk(detail.includes("http_401"), "and the reason");

    const forged = await client.post(`/console/channels/${channel.id}/breakers/reset`, {}, {
      csrf: "forged",
    });
    await forged.body?.cancel();
    assertEquals(forged.status, 403);
    assertEquals(
      (await s.gw.admin("GET", `/admin/channels/${channel.id}/breakers`)).body.keys[0].state,
      "open",
    );

    const reset = await client.post(`/console/channels/${channel.id}/breakers/reset`, {
      key: channel.breakers.keys[0].fingerprint,
    });
    await reset.body?.cancel();
    assertEquals(reset.status, 303);
    assertEquals(
      (await s.gw.admin("GET", `/admin/channels/${channel.id}/breakers`)).body.keys[0].state,
      "closed",
    );
    s.upstream.fault = undefined;
    const served = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    await served.body?.cancel();
    assertEquals(served.status, 200);
    const audit = (await s.gw.admin("GET", "/admin/audit")).body.data;
    const resetRecord = audit.find((entry: { route: string }) =>
      entry.route === "/admin/channels/:id/breakers/reset"
    );
    assertOk(resetRecord, "the reset is audited");
    assertOk(String(resetRecord.actor).startsWith("console:"), resetRecord.actor);
  },
);
