/**
 * The Azure OpenAI simulator against the official SDK's own Azure client (`AzureOpenAI`), so the
 * simulator's URLs and auth are the ones Azure's clients use; and its refusals as Azure answers.
 */

import { AzureOpenAI } from "openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { startAzureOpenAIUpstream } from "./azure_openai.ts";

const ENTRA = { tenant: "contoso", clientId: "app-1", secrets: ["client-secret-1"] };

Deno.test(
  "the AzureOpenAI client's deployment calls work with an api-key and with an Entra ID token provider",
  serverTest,
  async () => {
    await using azure = startAzureOpenAIUpstream({ apiKeys: ["azure-key"], entra: ENTRA });
    const keyed = new AzureOpenAI({
      endpoint: azure.endpoint,
      apiKey: "azure-key",
      apiVersion: "2024-10-21",
      deployment: "chat-prod",
      maxRetries: 0,
    });
    const answer = await keyed.chat.completions.create({
      model: "",
      messages: [{ role: "user", content: "hello azure" }],
    });
    assertEquals(answer.choices[0].message.content, "Echo: hello azure");
    assertEquals(
      azure.requests[0].url,
      "/openai/deployments/chat-prod/chat/completions?api-version=2024-10-21",
    );
    assertEquals(azure.requests[0].auth, "api-key");

    const token = await fetch(`${azure.authority}/contoso/oauth2/v2.0/token`, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: "app-1",
        client_secret: "client-secret-1",
        scope: "https://cognitiveservices.azure.com/.default",
      }),
    }).then((response) => response.json());
    const withToken = new AzureOpenAI({
      endpoint: azure.endpoint,
      azureADTokenProvider: () => Promise.resolve(token.access_token),
      apiVersion: "2024-10-21",
      maxRetries: 0,
    });
    const embedded = await withToken.embeddings.create({
      model: "embed-prod",
      input: "vectors please",
      encoding_format: "float",
    });
    assertEquals(embedded.data.length, 1);
    assertEquals(
      azure.requests[1].url,
      "/openai/deployments/embed-prod/embeddings?api-version=2024-10-21",
    );
    assertEquals(azure.requests[1].auth, "bearer");

    const stream = await keyed.chat.completions.create({
      model: "",
      stream: true,
      messages: [{ role: "user", content: "stream" }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    // Azure's first chunk: no choices, the prompt's filter results.
    assertEquals(chunks[0].choices, []);
    assertOk("prompt_filter_results" in chunks[0]);
    assertOk(chunks.slice(1).every((chunk) => "content_filter_results" in chunk.choices[0]));
  },
);

Deno.test("the simulator refuses as Azure does", serverTest, async () => {
  await using azure = startAzureOpenAIUpstream({ apiKeys: ["azure-key"], entra: ENTRA });
  const post = (path: string, headers: Record<string, string> = { "api-key": "azure-key" }) =>
    fetch(`${azure.endpoint}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    }).then(async (response) => ({ status: response.status, body: await response.json() }));
  const chatPath = "/openai/deployments/chat-prod/chat/completions";
  assertEquals(await post(chatPath), {
    status: 404,
    body: { error: { code: "404", message: "Resource not found" } },
  });
  assertEquals((await post(`${chatPath}?api-version=2019-01-01`)).status, 400);
  assertEquals(
    (await post(`${chatPath}?api-version=2024-10-21`, { "api-key": "wrong" })).status,
    401,
  );
  assertEquals((await post(`${chatPath}?api-version=2024-10-21`, {})).status, 401);
  const missing = await post("/openai/deployments/nope/chat/completions?api-version=2024-10-21");
  assertEquals([missing.status, missing.body.error.code], [404, "DeploymentNotFound"]);
  const refused = await fetch(`${azure.authority}/contoso/oauth2/v2.0/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: "app-1",
      client_secret: "wrong",
      scope: "https://cognitiveservices.azure.com/.default",
    }),
  });
  assertEquals([refused.status, (await refused.json()).error], [401, "invalid_client"]);
});
