/**
 * The console's New channel form for the Azure OpenAI types: their own fields shown (and no
 * other type's), a channel with Entra ID client credentials made through the form, and its Test
 * answered by the Azure simulator; the admin API's channel test works for both Azure types.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  ADMIN_TOKEN,
  serverTest,
  startTestGateway,
  TEST_TEXT_PRICE,
} from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { startAzureOpenAIUpstream } from "../../upstream/azure_openai.ts";

const ENTRA = { tenant: "contoso", clientId: "app-1", secrets: ["client-secret-1"] };
const AZURE_FIELDS = [
  "url_shape",
  "api_version",
  "azure_auth",
  "entra_tenant_id",
  "entra_client_id",
  "entra_authority",
];

Deno.test(
  "console: the azure-openai form shows Azure's fields, makes an Entra ID channel, and its Test passes",
  serverTest,
  async () => {
    await using stack = new AsyncDisposableStack();
    const azure = stack.use(startAzureOpenAIUpstream({ apiKeys: ["azure-key"], entra: ENTRA }));
    const gw = stack.use(await startTestGateway());
    await gw.putModel("az-chat", { kind: "text", price: TEST_TEXT_PRICE });
    await gw.putModel("az-resp", { kind: "text", price: TEST_TEXT_PRICE });
    const client = consoleClient(gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();

    const picker = await (await client.get("/console/channels/new")).text();
    for (const type of ["azure-openai", "azure-openai-responses"]) {
      assertOk(picker.includes(`value="${type}"`), `the picker offers ${type}`);
    }
    const form = await (await client.get("/console/channels/new?type=azure-openai")).text();
    for (const name of AZURE_FIELDS) assertOk(form.includes(`name="${name}"`), name);
    assertOk(!form.includes('name="anthropic_version"'), "no anthropic field");
    assertOk(form.includes("https://my-resource.openai.azure.com"), "its URL form");
    const openaiForm = await (await client.get("/console/channels/new?type=openai")).text();
    assertOk(!openaiForm.includes('name="api_version"'), "no Azure field on openai");

    const answer = await client.post("/console/channels/new", {
      type: "azure-openai",
      name: "azure entra",
      base_url: azure.endpoint,
      keys: "client-secret-1",
      models: "az-chat",
      model_map: "az-chat = chat-prod",
      url_shape: "deployment",
      api_version: "2024-10-21",
      azure_auth: "entra",
      entra_tenant_id: "contoso",
      entra_client_id: "app-1",
      entra_authority: azure.authority,
      enabled: "on",
    });
    await answer.body?.cancel();
    assertEquals(answer.status, 303);
    const id = answer.headers.get("location")!.split("/").at(-1)!;
    const channel = (await gw.admin("GET", `/admin/channels/${id}`)).body;
    assertEquals(
      [channel.type, channel.azure_auth, channel.entra_tenant_id, channel.api_version],
      ["azure-openai", "entra", "contoso", "2024-10-21"],
    );
    const edit = await (await client.get(`/console/channels/${id}/edit`)).text();
    assertOk(edit.includes('value="contoso"'), "the edit form shows the tenant");
    assertOk(!edit.includes("client-secret-1"), "the secret is never shown");

    const tested = await gw.admin("POST", `/admin/channels/${id}/test`, { model: "az-chat" });
    assertEquals(tested.status, 200, JSON.stringify(tested.body));
    assertEquals(tested.body.ok, true, JSON.stringify(tested.body));
    assertEquals(azure.tokenRequests, [{ clientId: "app-1", granted: true }]);

    // A form missing the api_version is answered with the form and the API's message.
    const refused = await client.post("/console/channels/new", {
      type: "azure-openai",
      name: "no version",
      base_url: azure.endpoint,
      keys: "azure-key",
      models: "az-chat",
      enabled: "on",
    });
    assertEquals(refused.status, 400);
    assertOk((await refused.text()).includes("needs an api_version"));

    const responses = await gw.addChannel({
      type: "azure-openai-responses",
      base_url: azure.endpoint,
      url_shape: "v1",
      keys: ["azure-key"],
      models: ["az-resp"],
      model_map: { "az-resp": "resp-prod" },
    });
    const probed = await gw.admin("POST", `/admin/channels/${responses.id}/test`, {});
    assertEquals(probed.body.ok, true, JSON.stringify(probed.body));
  },
);
