/**
 * `azure-openai` and `azure-openai-responses` channels end to end: the real gateway, the Azure
 * OpenAI simulator (tests/upstream/azure_openai.ts) and the official openai SDK as the client.
 * Both URL shapes, api keys, Entra ID bearer tokens and client secrets; chat (stream and not),
 * responses, embeddings and images; Azure's content filter fields read; wallets that match the
 * receipts; bad channel settings refused at create.
 */

import OpenAI, { toFile } from "openai";
import { squarePngWithTransparency } from "../helpers/png_fixtures.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, startTestGateway, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import { type AzureOpenAIUpstream, startAzureOpenAIUpstream } from "../upstream/azure_openai.ts";
import { IMAGE_PRICE } from "../helpers/image_setup.ts";
import { EMBEDDING_PRICE } from "../helpers/embedding_setup.ts";
import { walletMatchesReceipts } from "../helpers/wallet_receipts.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const ENTRA = { tenant: "contoso", clientId: "app-1", secrets: ["client-secret-1"] };
const START_BALANCE = 10_000_000;

async function setup() {
  await using stack = new AsyncDisposableStack();
  const azure = stack.use(startAzureOpenAIUpstream({
    apiKeys: ["azure-key-1"],
    bearerTokens: ["given-entra-token"],
    entra: ENTRA,
  }));
  const gw = stack.use(await startTestGateway());
  for (const id of ["az-chat", "az-chat-v1", "az-resp"]) {
    await gw.putModel(id, { kind: "text", price: TEST_TEXT_PRICE });
  }
  await gw.putModel("az-embed", { kind: "embedding", price: EMBEDDING_PRICE });
  await gw.putModel("az-image", { kind: "image", price: IMAGE_PRICE });
  const { id, key } = await gw.createKey({ balance: START_BALANCE });
  const owned = stack.move();
  const close = () => owned.disposeAsync();
  return {
    azure,
    gw,
    keyId: id,
    startBalance: START_BALANCE,
    client: new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** An Azure channel on `azure`, deployment shape with an api key unless `fields` say otherwise. */
function azureChannel(azure: AzureOpenAIUpstream, fields: Record<string, unknown>) {
  return {
    name: "azure",
    type: "azure-openai",
    base_url: azure.endpoint,
    api_version: "2024-10-21",
    keys: ["azure-key-1"],
    ...fields,
  };
}

Deno.test(
  "azure-openai deployment shape with an api key: chat stream and not, embeddings, image generations and edits through the openai SDK, billed as the receipts say",
  serverTest,
  async () => {
    await using s = await setup();
    await s.gw.addChannel(azureChannel(s.azure, {
      models: ["az-chat", "az-embed", "az-image"],
      model_map: { "az-chat": "chat-prod", "az-embed": "embed-prod", "az-image": "image-prod" },
    }));

    const answer = await s.client.chat.completions.create({
      model: "az-chat",
      messages: [{ role: "user", content: "hello azure" }],
    });
    assertEquals(answer.choices[0].message.content, "Echo: hello azure");
    assertEquals(answer.choices[0].finish_reason, "stop");
    assertEquals(answer.model, "az-chat");
    const chatCall = s.azure.requests[0];
    assertEquals(
      chatCall.url,
      "/openai/deployments/chat-prod/chat/completions?api-version=2024-10-21",
    );
    assertEquals(chatCall.auth, "api-key");

    const stream = await s.client.chat.completions.create({
      model: "az-chat",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "stream from azure" }],
    });
    let text = "";
    let usage: Json;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      usage = chunk.usage ?? usage;
    }
    assertEquals(text, "Echo: stream from azure");
    assertOk(usage.completion_tokens > 0);

    const embedded = await s.client.embeddings.create({
      model: "az-embed",
      input: ["one", "two"],
      encoding_format: "float",
    });
    assertEquals(embedded.data.length, 2);
    assertEquals(embedded.model, "az-embed");
    assertEquals(
      s.azure.requests.at(-1)!.url,
      "/openai/deployments/embed-prod/embeddings?api-version=2024-10-21",
    );

    const image = await s.client.images.generate({ model: "az-image", prompt: "a red square" });
    assertOk(image.data![0].url ?? image.data![0].b64_json);
    assertEquals(
      s.azure.requests.at(-1)!.url,
      "/openai/deployments/image-prod/images/generations?api-version=2024-10-21",
    );

    const edited = await s.client.images.edit({
      model: "az-image",
      image: await toFile(squarePngWithTransparency(64), "source.png", { type: "image/png" }),
      prompt: "fill it",
    });
    assertOk(edited.data![0].url ?? edited.data![0].b64_json);
    assertEquals(
      s.azure.requests.at(-1)!.url,
      "/openai/deployments/image-prod/images/edits?api-version=2024-10-21",
    );
    assertEquals(s.azure.requests.at(-1)!.auth, "api-key");

    const records = await walletMatchesReceipts(s);
    assertEquals(records.length, 5);
    assertOk(records.every((record) => record.receipt.charged > 0));
    // The chat answer's bill is exactly its usage at the model's price.
    const chatRecord = records.find((record) => record.receipt.kind === "text" && !record.stream);
    const { prompt_tokens, completion_tokens } = answer.usage!;
    assertEquals(
      chatRecord.receipt.charged,
      Math.ceil(prompt_tokens * TEST_TEXT_PRICE.input / 1e6) +
        Math.ceil(completion_tokens * TEST_TEXT_PRICE.output / 1e6),
    );
  },
);

Deno.test(
  "azure-openai reads Azure's content filter: prompt_filter_results chunks, content_filter finish, a refused prompt is the client's 400 at no charge",
  serverTest,
  async () => {
    await using s = await setup();
    await s.gw.addChannel(azureChannel(s.azure, {
      models: ["az-chat"],
      model_map: { "az-chat": "chat-prod" },
    }));
    const filtered = await s.client.chat.completions.create({
      model: "az-chat",
      messages: [{ role: "user", content: "FILTERED_OUTPUT" }],
    });
    assertEquals(filtered.choices[0].finish_reason, "content_filter");

    const stream = await s.client.chat.completions.create({
      model: "az-chat",
      stream: true,
      messages: [{ role: "user", content: "FILTERED_OUTPUT now" }],
    });
    const reasons = [];
    for await (const chunk of stream) {
      if (chunk.choices[0]?.finish_reason) reasons.push(chunk.choices[0].finish_reason);
    }
    assertEquals(reasons, ["content_filter"]);

    // Converted to the responses interface, the filtered answer is incomplete for that reason.
    const converted = await s.client.responses.create({
      model: "az-chat",
      input: "FILTERED_OUTPUT again",
    });
    assertEquals(converted.status, "incomplete");
    assertEquals(converted.incomplete_details?.reason, "content_filter");

    const before = await s.gw.balance(s.keyId);
    const refused = await s.client.chat.completions.create({
      model: "az-chat",
      messages: [{ role: "user", content: "FILTERED_PROMPT" }],
    }).catch((error) => error);
    assertEquals(refused.status, 400);
    assertOk(String(refused.message).includes("content management policy"), refused.message);
    assertEquals(await s.gw.balance(s.keyId), before);
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "azure-openai v1 shape with Entra ID client credentials: one token for many calls, the deployment in the body",
  serverTest,
  async () => {
    await using s = await setup();
    await s.gw.addChannel(azureChannel(s.azure, {
      url_shape: "v1",
      api_version: undefined,
      azure_auth: "entra",
      entra_tenant_id: "contoso",
      entra_client_id: "app-1",
      entra_authority: s.azure.authority,
      keys: ["client-secret-1"],
      models: ["az-chat-v1"],
      model_map: { "az-chat-v1": "chat-prod" },
    }));
    for (const content of ["first", "second", "third"]) {
      const answer = await s.client.chat.completions.create({
        model: "az-chat-v1",
        messages: [{ role: "user", content }],
      });
      assertEquals(answer.choices[0].message.content, `Echo: ${content}`);
    }
    assertEquals(s.azure.tokenRequests, [{ clientId: "app-1", granted: true }]);
    for (const call of s.azure.requests) {
      assertEquals(call.url, "/openai/v1/chat/completions");
      assertEquals(call.auth, "bearer");
      assertEquals(call.body.model, "chat-prod");
    }
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "azure-openai with Entra ID: a token that expires mid-traffic is replaced before it lapses, no request refused",
  serverTest,
  async () => {
    await using stack = new AsyncDisposableStack();
    // Tokens of four seconds: the gateway replaces each at half its life, two seconds before it
    // lapses (room for a slow call on a loaded machine).
    const azure = stack.use(startAzureOpenAIUpstream({ entra: { ...ENTRA, expiresInSeconds: 4 } }));
    const gw = stack.use(await startTestGateway());
    await gw.putModel("az-chat", { kind: "text", price: TEST_TEXT_PRICE });
    await gw.addChannel(azureChannel(azure, {
      azure_auth: "entra",
      entra_tenant_id: "contoso",
      entra_client_id: "app-1",
      entra_authority: azure.authority,
      keys: ["client-secret-1"],
      models: ["az-chat"],
      model_map: { "az-chat": "chat-prod" },
    }));
    const { key } = await gw.createKey({ balance: START_BALANCE });
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    // Requests until a second token was fetched (a state polled, not a time asserted).
    for (let sent = 0; azure.tokenRequests.length < 2; sent++) {
      assertOk(sent < 1000, "no second token was fetched");
      const answer = await client.chat.completions.create({
        model: "az-chat",
        messages: [{ role: "user", content: `call ${sent}` }],
      });
      assertEquals(answer.choices[0].message.content, `Echo: call ${sent}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const last = await client.chat.completions.create({
      model: "az-chat",
      messages: [{ role: "user", content: "after refresh" }],
    });
    assertEquals(last.choices[0].message.content, "Echo: after refresh");
    assertOk(azure.tokenRequests.every((request) => request.granted));
    assertOk(azure.requests.every((call) => call.auth === "bearer"));
  },
);

Deno.test(
  "azure-openai with Entra ID: a cached token Azure refuses is dropped, and the next request fetches a fresh one",
  serverTest,
  async () => {
    await using s = await setup();
    await s.gw.addChannel(azureChannel(s.azure, {
      azure_auth: "entra",
      entra_tenant_id: "contoso",
      entra_client_id: "app-1",
      entra_authority: s.azure.authority,
      keys: ["client-secret-1"],
      // Its breaker off: a refusal would otherwise set the key aside for its cooldown.
      breaker: { enabled: false },
      models: ["az-chat"],
      model_map: { "az-chat": "chat-prod" },
    }));
    const ask = (content: string) =>
      s.client.chat.completions.create({ model: "az-chat", messages: [{ role: "user", content }] });
    assertEquals((await ask("first")).choices[0].message.content, "Echo: first");
    // Azure stops taking the tokens it issued (as after a key roll on the resource).
    s.azure.issued.clear();
    const refused = await ask("refused").catch((error) => error);
    assertOk(refused.status >= 500, `the channel's refusal, not the client's: ${refused.status}`);
    assertEquals((await ask("fresh")).choices[0].message.content, "Echo: fresh");
    assertEquals(s.azure.tokenRequests.length, 2);
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "azure-openai with a revoked client secret fails over to the next channel, and the refusal is the channel's, never the client's",
  serverTest,
  async () => {
    await using s = await setup();
    await s.gw.addChannel(azureChannel(s.azure, {
      name: "revoked",
      priority: 10,
      azure_auth: "entra",
      entra_tenant_id: "contoso",
      entra_client_id: "app-1",
      entra_authority: s.azure.authority,
      keys: ["revoked-secret"],
      models: ["az-chat"],
      model_map: { "az-chat": "chat-prod" },
    }));
    await s.gw.addChannel(azureChannel(s.azure, {
      name: "keyed",
      models: ["az-chat"],
      model_map: { "az-chat": "chat-prod" },
    }));
    const answer = await s.client.chat.completions.create({
      model: "az-chat",
      messages: [{ role: "user", content: "still served" }],
    }).withResponse();
    assertEquals(answer.data.choices[0].message.content, "Echo: still served");
    assertEquals(s.azure.tokenRequests, [{ clientId: "app-1", granted: false }]);
    assertEquals(s.azure.requests.map((call) => call.auth), ["api-key"]);
    const [record] = await walletMatchesReceipts(s);
    assertEquals(record.upstream_attempts.length, 2);
    assertEquals(record.upstream_attempts[0].status, 401);
    assertEquals(record.upstream_attempts[1].outcome, "ok");
    assertOk(!JSON.stringify(record).includes("revoked-secret"), "the secret is in the record");
  },
);

Deno.test(
  "azure-openai-responses with a bearer token given as the key: responses stream and not, on both URL shapes",
  serverTest,
  async () => {
    await using s = await setup();
    const channel = await s.gw.addChannel(azureChannel(s.azure, {
      type: "azure-openai-responses",
      api_version: "2025-04-01-preview",
      azure_auth: "bearer",
      keys: ["given-entra-token"],
      models: ["az-resp"],
      model_map: { "az-resp": "resp-prod" },
    }));
    const answer = await s.client.responses.create({ model: "az-resp", input: "hi responses" });
    assertEquals(answer.output_text, "Echo: hi responses");
    assertEquals(s.azure.requests[0].url, "/openai/responses?api-version=2025-04-01-preview");
    assertEquals(s.azure.requests[0].body.model, "resp-prod");
    assertEquals(s.azure.requests[0].auth, "bearer");

    const patched = await s.gw.admin("PATCH", `/admin/channels/${channel.id}`, {
      url_shape: "v1",
    });
    assertEquals(patched.status, 200, JSON.stringify(patched.body));
    await s.gw.settle();
    const stream = await s.client.responses.create({
      model: "az-resp",
      input: "stream responses",
      stream: true,
    });
    let text = "";
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
    }
    assertEquals(text, "Echo: stream responses");
    // v1 takes no dated api_version: the channel's is left off.
    assertEquals(s.azure.requests[1].url, "/openai/v1/responses");
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "azure channel settings that cannot work are refused at create with a 400 naming the field",
  serverTest,
  async () => {
    await using s = await setup();
    const create = (fields: Record<string, unknown>) =>
      s.gw.admin("POST", "/admin/channels", {
        ...azureChannel(s.azure, { models: ["az-chat"] }),
        ...fields,
      });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ api_version: undefined }, "api_version"],
      [{ api_version: "2024-10-21&x=1" }, "api_version"],
      [{ azure_auth: "entra", entra_client_id: "app-1" }, "entra_tenant_id"],
      [{ azure_auth: "entra", entra_tenant_id: "contoso" }, "entra_client_id"],
      [{ url_shape: "v2" }, "url_shape"],
      [{ base_url: `${s.azure.endpoint}/openai/deployments/chat-prod` }, "base_url"],
      [{ type: "openai", base_url: `${s.azure.endpoint}/v1` }, "api_version"],
    ];
    for (const [fields, param] of cases) {
      const { status, body } = await create(fields);
      assertEquals(status, 400, JSON.stringify(fields));
      assertEquals(body.error.param, param, JSON.stringify(body));
    }
    // v1 needs no api_version.
    const v1 = await create({ url_shape: "v1", api_version: undefined });
    assertEquals(v1.status, 201, JSON.stringify(v1.body));
  },
);
