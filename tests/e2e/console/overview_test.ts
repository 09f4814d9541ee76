/**
 * The console's Overview and a key's activity over HTTP: the tiles and charts add up to the
 * admin usage API (the rollups), top models and keys and channel health link to their filtered
 * lists, a holder is refused the Overview, and a key's page lists its usage and recent requests.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";
import { shownAmount as shown } from "../../helpers/console_money.ts";

const ask = { model: MODEL, messages: [{ role: "user", content: "hi" }] };

Deno.test(
  "console overview: spend and requests from the rollups, top models and keys, channel health, each linking to its list",
  serverTest,
  async () => {
    await using s = await setupChat();
    for (let i = 0; i < 2; i++) {
      const answer = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
      await answer.body?.cancel();
      assertEquals(answer.status, 200);
    }
    await s.gw.settle();
    const usage = (await s.gw.admin("GET", "/admin/usage?interval=day")).body.data;
    const cost = usage.reduce((sum: number, row: { cost: number }) => sum + row.cost, 0);
    assertOk(cost > 0, "the requests cost something");

    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const response = await client.get("/console");
    assertEquals(response.status, 200);
    const html = await response.text();
    assertOk(html.includes("<h1>Overview</h1>"), "the Overview, not the placeholder");
    assertOk(!html.includes("not built yet"), "no placeholder");
    // Today, 7 days and 30 days all hold the two requests.
    assertEquals(html.split(`<span class="tile-value">${shown(cost)}</span>`).length - 1, 3);
    assertEquals(html.split("<span>2 requests</span>").length - 1, 3);
    assertOk(/href="\/console\/requests\?since=\d{4}-\d{2}-\d{2}T00%3A00%3A00\.000Z"/.test(html));
    assertOk(html.includes(`href="/console/requests?status=5xx"`), "the error rate tile");
    assertOk(html.includes(`href="/console/tasks?status=in_progress"`), "the running tasks tile");
    assertOk(html.includes(`href="/console/requests?model=${MODEL}&amp;since=`), "top model");
    assertOk(html.includes(`href="/console/requests?key=${s.keyId}&amp;since=`), "top key");
    assertOk(html.includes(">test</a>"), "the key by its name");
    assertOk(html.includes(">primary</a>"), "the channel in the health table");
    assertOk(html.includes("0 of 2 attempts failed"), "the error rate of the last hour");
    // Two 30-day charts, one bar per day.
    assertEquals(html.split('<rect class="bar"').length - 1, 60);
    assertOk(html.includes("Copy as curl") && html.includes("/admin/usage?interval=day"));

    const holder = consoleClient(s.gw.url);
    await (await holder.signIn(s.key)).body?.cancel();
    const refused = await holder.get("/console");
    await refused.body?.cancel();
    assertEquals(refused.status, 403);
  },
);

Deno.test(
  "console key detail: usage per day and by model for 30 days, recent requests linking to their pages",
  serverTest,
  async () => {
    await using s = await setupChat();
    const answer = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    await answer.body?.cancel();
    await s.gw.settle();
    const logged = (await s.gw.admin("GET", `/admin/requests?key=${s.keyId}`)).body.data;
    assertEquals(logged.length, 1);

    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const html = await (await client.get(`/console/keys/${s.keyId}?tab=usage`)).text();
    assertOk(html.includes("Usage, 30 days") && html.includes("Recent requests"));
    assertOk(html.includes(`href="/console/requests/${logged[0].id}"`), "the request links");
    assertOk(html.includes(`href="/console/requests?key=${s.keyId}&amp;model=${MODEL}"`));
    assertOk(html.includes(`<td>${new Date().toISOString().slice(0, 10)}</td><td>1</td>`));
    assertOk(html.includes(`<td>${shown(logged[0].cost)}</td>`), "the cost");
    assertOk(html.includes("No tasks among the newest"), "no tasks yet");
  },
);

Deno.test(
  "console overview: Today counts requests, spend and errors by channel and model, with latency percentiles from the metrics histogram",
  serverTest,
  async () => {
    await using s = await setupChat();
    for (let i = 0; i < 2; i++) {
      const answer = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
      await answer.body?.cancel();
      assertEquals(answer.status, 200);
    }
    s.upstream.fault = { kind: "status", status: 500 };
    const failed = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    await failed.body?.cancel();
    s.upstream.fault = undefined;
    assertOk(failed.status >= 500, `the upstream's failure: ${failed.status}`);
    const unknown = await postJson(s.gw, "/v1/chat/completions", s.key, { ...ask, model: "nope" });
    await unknown.body?.cancel();
    assertEquals(unknown.status, 404);
    await s.gw.settle();

    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const html = await (await client.get("/console")).text();
    const today = html.slice(
      html.indexOf('id="today-heading"'),
      html.indexOf('id="spend-heading"'),
    );
    assertOk(today.includes("Today by channel") && today.includes("Today by model"), today);
    const row = (caption: string, name: string) => {
      const table = today.slice(today.indexOf(caption));
      const start = table.indexOf(`>${name}</a>`);
      assertOk(start > 0, `${name} in ${caption}`);
      return table.slice(start, table.indexOf("</tr>", start)).replace(/<[^>]+>/g, "|");
    };
    // Requests and spend from the rollups; a failed request is 5xx, the unknown model 4xx.
    const cost = (await s.gw.admin("GET", "/admin/usage?interval=day")).body.data.reduce(
      (sum: number, usage: { cost: number }) => sum + usage.cost,
      0,
    );
    const cells = `<td>3</td><td>${shown(cost)}</td><td class="bad">1</td><td>0</td>`
      .replace(/<[^>]+>/g, "|");
    assertOk(row("Today by channel", "primary").includes(cells), today);
    assertOk(row("Today by model", MODEL).includes(cells), today);
    assertOk(today.includes("(no channel)"), "the refused request had no channel");
    assertOk(today.includes("1 5xx") && today.includes("1 4xx"), "the errors tile");
    const latency = today.slice(today.indexOf('id="tile-latency"'));
    assertOk(
      /\d+ ms \/ \d+ ms \/ \d+ ms/.test(latency.slice(0, latency.indexOf("</div>"))),
      latency,
    );
    assertOk(today.includes("this instance"), "says the percentiles are this instance's");
  },
);
