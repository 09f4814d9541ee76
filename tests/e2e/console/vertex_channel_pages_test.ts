/**
 * A vertex channel through the console: the New channel form asks for its project, location
 * and a service account's JSON key (pasted whole, several lines); the channel page shows the key
 * by its account only; Test every model passes for a Gemini and a Claude model.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { startVertexUpstream } from "../../upstream/vertex.ts";

Deno.test(
  "console channels: a vertex channel made through its form with a pasted JSON key, shown by its account, tested",
  serverTest,
  async () => {
    await using stack = new AsyncDisposableStack();
    const gw = stack.use(await startTestGateway());
    const sim = stack.use(await startVertexUpstream());
    const client = consoleClient(gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();

    const picker = await client.get("/console/channels/new");
    assertOk((await picker.text()).includes('value="vertex"'), "the picker offers vertex");
    const form = await (await client.get("/console/channels/new?type=vertex")).text();
    for (
      const field of [
        'name="project"',
        'name="location"',
        'name="vertex_publisher"',
        "service account",
      ]
    ) {
      assertOk(form.includes(field), `the vertex form has ${field}`);
    }

    const created = await client.post("/console/channels/new", {
      type: "vertex",
      name: "my vertex",
      base_url: sim.baseUrl,
      project: sim.project,
      location: sim.location,
      keys: sim.account.json, // pretty-printed: many lines, commas inside
      models: "cv-gemini, cv-claude",
      model_map: "cv-gemini = gemini-2.5-flash\ncv-claude = claude-sonnet-4-5@20250929",
      create_models: "on",
      enabled: "on",
    });
    const createdBody = await created.text();
    assertEquals(created.status, 303, createdBody.match(/role="alert">([^<]*)/)?.[1]);
    const id = created.headers.get("location")!.split("/").at(-1)!;
    const channel = (await gw.admin("GET", `/admin/channels/${id}`)).body;
    assertEquals(
      [channel.type, channel.project, channel.location, channel.key_count],
      ["vertex", sim.project, sim.location, 1],
    );
    assertEquals(channel.keys[0].account, sim.account.email);

    const detail = await (await client.get(`/console/channels/${id}`)).text();
    assertOk(detail.includes(sim.account.email), "the key is named by its account");
    assertOk(!detail.includes("PRIVATE KEY"), "never the key");

    const tested = await client.post(`/console/channels/${id}/test-all`, {});
    const html = await tested.text();
    assertOk(html.includes("2 models tested: all passed."), html.slice(0, 2000));
    assertEquals(sim.tokenCalls.issued, 1);
    assertEquals(
      sim.requests.map((request) => `${request.publisher}:${request.method}`).sort(),
      ["anthropic:rawPredict", "google:generateContent"],
    );
  },
);
