import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { assertEquals } from "../helpers/assert.ts";
import { serverTest, startTestGateway, TEST_TEXT_PRICE } from "../helpers/gateway.ts";

async function setup() {
  const gw = await startTestGateway();
  for (const id of ["alpha", "beta", "gamma", "vip-only", "no-channel"]) {
    await gw.putModel(id, {
      kind: "text",
      price: TEST_TEXT_PRICE,
      groups: id === "vip-only" ? ["vip"] : ["default", "vip"],
    });
  }
  await gw.addChannel({ base_url: "http://127.0.0.1:9/v1", models: ["alpha", "beta", "gamma"] });
  await gw.addChannel({ base_url: "http://127.0.0.1:9/v1", models: ["vip-only"], groups: ["vip"] });
  await gw.addChannel({
    base_url: "http://127.0.0.1:9/v1",
    models: ["gen-image-2"],
    enabled: false,
  });
  return gw;
}

Deno.test(
  "GET /v1/models with openai: exactly the key's models that have an enabled channel",
  serverTest,
  async () => {
    await using gw = await setup();
    const { key } = await gw.createKey();
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1` });
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    assertEquals(ids, ["alpha", "beta", "gamma"]);
    const one = await client.models.retrieve("beta");
    assertEquals(one.object, "model");
    assertEquals(one.id, "beta");
    const missing = await client.models.retrieve("vip-only").catch((e) => e);
    assertEquals(missing.status, 404);

    const limited = await gw.createKey({ models: ["gamma"] });
    const limitedClient = new OpenAI({ apiKey: limited.key, baseURL: `${gw.url}/v1` });
    assertEquals((await limitedClient.models.list()).data.map((m) => m.id), ["gamma"]);
    const vip = await gw.createKey({ group: "vip" });
    const vipClient = new OpenAI({ apiKey: vip.key, baseURL: `${gw.url}/v1` });
    assertEquals((await vipClient.models.list()).data.map((m) => m.id), ["vip-only"]);
  },
);

Deno.test(
  "GET /v1/models with the Anthropic SDK: Anthropic shape, paged with after_id",
  serverTest,
  async () => {
    await using gw = await setup();
    const { key } = await gw.createKey();
    const client = new Anthropic({ apiKey: key, baseURL: gw.url });
    const first = await client.models.list({ limit: 2 });
    assertEquals(first.data.map((m) => m.id), ["alpha", "beta"]);
    assertEquals(first.data[0].type, "model");
    assertEquals(first.has_more, true);
    const ids = [];
    for await (const model of client.models.list({ limit: 2 })) ids.push(model.id);
    assertEquals(ids, ["alpha", "beta", "gamma"]);
    assertEquals((await client.models.retrieve("gamma")).display_name, "gamma");
  },
);

Deno.test(
  "GET /v1beta/models with @google/genai: Gemini shape, paged with pageToken",
  serverTest,
  async () => {
    await using gw = await setup();
    const { key } = await gw.createKey();
    const client = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
    const names = [];
    for await (const model of await client.models.list({ config: { pageSize: 2 } })) {
      names.push(
        model.name,
      );
    }
    assertEquals(names, ["models/alpha", "models/beta", "models/gamma"]);
    const byQueryKey = await fetch(`${gw.url}/v1beta/models?key=${key}`);
    assertEquals((await byQueryKey.json()).models.length, 3);
    const vendorHeader = await fetch(`${gw.url}/v1beta/models/beta`, {
      headers: { "x-vendor-api-key": key },
    });
    assertEquals((await vendorHeader.json()).name, "models/beta");
    const unauthorised = await fetch(`${gw.url}/v1beta/models`);
    assertEquals(unauthorised.status, 401);
    const body = await unauthorised.json();
    assertEquals(body.error.status, "UNAUTHENTICATED");
    assertEquals(body.error.details[0].reason, "MISSING_API_KEY");
  },
);

const PRICE = "Price: input 1000000, cached input 500000, output 2000000 units per million tokens.";

Deno.test(
  "model descriptions name the key groups of each model, in every list shape that has a description",
  serverTest,
  async () => {
    await using gw = await setup();
    await gw.putModel("alpha", {
      kind: "text",
      price: TEST_TEXT_PRICE,
      groups: ["default", "vip"],
      description: "A general model",
    });
    const { key } = await gw.createKey();
    const vip = await gw.createKey({ group: "vip" });
    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
    const descriptions: Record<string, string | undefined> = {};
    for await (const model of await ai.models.list()) descriptions[model.name!] = model.description;
    assertEquals(descriptions, {
      "models/alpha": `A general model. Groups: default, vip. ${PRICE}`,
      "models/beta": `Groups: default, vip. ${PRICE}`,
      "models/gamma": `Groups: default, vip. ${PRICE}`,
    });
    assertEquals(
      (await ai.models.get({ model: "alpha" })).description,
      `A general model. Groups: default, vip. ${PRICE}`,
    );
    const vipAi = new GoogleGenAI({ apiKey: vip.key, httpOptions: { baseUrl: gw.url } });
    assertEquals(
      (await vipAi.models.get({ model: "vip-only" })).description,
      `Groups: vip. ${PRICE}`,
    );
    // The Gemini shape on /v1/models (Google credentials) too.
    const v1 = await fetch(`${gw.url}/v1/models/alpha`, { headers: { "x-goog-api-key": key } });
    assertEquals((await v1.json()).description, `A general model. Groups: default, vip. ${PRICE}`);
    // OpenAI's Model and Anthropic's ModelInfo have no description field: none is added.
    const openai = await fetch(`${gw.url}/v1/models/alpha`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assertEquals(Object.keys(await openai.json()).sort(), ["created", "id", "object", "owned_by"]);
    const anthropic = await fetch(`${gw.url}/v1/models/alpha`, {
      headers: { "x-api-key": key, "anthropic-version": "2023-06-01" },
    });
    assertEquals((await anthropic.json()).description, undefined);
  },
);
