/**
 * The console's New channel form for `bedrock`: its own fields shown (and not on other types),
 * a SigV4 channel made through the form, its Test answered by the Bedrock simulator (which
 * checks the signature), and a form without a region answered with the API's message.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  ADMIN_TOKEN,
  serverTest,
  startTestGateway,
  TEST_TEXT_PRICE,
} from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import {
  BEDROCK_TEST_ACCESS_KEY,
  BEDROCK_TEST_MODEL,
  BEDROCK_TEST_SECRET,
  startBedrockUpstream,
} from "../../upstream/bedrock.ts";

Deno.test(
  "console: the bedrock form shows its region and key kind, makes a SigV4 channel, and its Test passes",
  serverTest,
  async () => {
    await using stack = new AsyncDisposableStack();
    const bedrock = stack.use(startBedrockUpstream());
    const gw = stack.use(await startTestGateway());
    await gw.putModel("claude-br", { kind: "text", price: TEST_TEXT_PRICE });
    const client = consoleClient(gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();

    const picker = await (await client.get("/console/channels/new")).text();
    assertOk(picker.includes('value="bedrock"'), "the picker offers bedrock");
    const form = await (await client.get("/console/channels/new?type=bedrock")).text();
    for (const name of ["region", "bedrock_auth"]) assertOk(form.includes(`name="${name}"`), name);
    assertOk(form.includes("https://bedrock-runtime.us-east-1.amazonaws.com"), "its URL form");
    const openaiForm = await (await client.get("/console/channels/new?type=openai")).text();
    assertOk(!openaiForm.includes('name="bedrock_auth"'), "no Bedrock field on openai");

    const answer = await client.post("/console/channels/new", {
      type: "bedrock",
      name: "bedrock east",
      base_url: bedrock.endpoint,
      keys: `${BEDROCK_TEST_ACCESS_KEY}:${BEDROCK_TEST_SECRET}`,
      models: "claude-br",
      model_map: `claude-br = ${BEDROCK_TEST_MODEL}`,
      region: "us-east-1",
      bedrock_auth: "sigv4",
      enabled: "on",
    });
    await answer.body?.cancel();
    assertEquals(answer.status, 303);
    const id = answer.headers.get("location")!.split("/").at(-1)!;
    const channel = (await gw.admin("GET", `/admin/channels/${id}`)).body;
    assertEquals([channel.type, channel.region, channel.bedrock_auth], [
      "bedrock",
      "us-east-1",
      "sigv4",
    ]);
    const edit = await (await client.get(`/console/channels/${id}/edit`)).text();
    assertOk(edit.includes('value="us-east-1"'), "the edit form shows the region");
    assertOk(!edit.includes(BEDROCK_TEST_SECRET), "the secret is never shown");

    const tested = await gw.admin("POST", `/admin/channels/${id}/test`, { model: "claude-br" });
    assertEquals(tested.status, 200, JSON.stringify(tested.body));
    assertEquals(tested.body.ok, true, JSON.stringify(tested.body));
    assertEquals(bedrock.requests.at(-1)?.auth, "sigv4");
    assertEquals(bedrock.requests.at(-1)?.refused, undefined);

    const refused = await client.post("/console/channels/new", {
      type: "bedrock",
      name: "no region",
      base_url: bedrock.endpoint,
      keys: `${BEDROCK_TEST_ACCESS_KEY}:${BEDROCK_TEST_SECRET}`,
      models: "claude-br",
      enabled: "on",
    });
    assertEquals(refused.status, 400);
    assertOk((await refused.text()).includes("needs a region"));
  },
);
