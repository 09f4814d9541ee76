/**
 * The `embedding` model kind around the requests: PUT /admin/models checks its price, /v1/models
 * lists it for a key (Gemini's list with the embed methods), the console's Models page shows its
 * price and prices it in the calculator, and the channel Test button embeds one short text on an
 * `openai` and a `gemini` channel, billed nowhere.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../helpers/gateway.ts";
import { consoleClient } from "../helpers/console_client.ts";
import { recordOf, setupEmbeddings } from "../helpers/embedding_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test(
  "embedding models: an embedding price is {input}; anything else is a 400 that says so",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    for (const price of [{ input: 1, output: 2 }, { per_image: 5 }, {}, { input: -1 }]) {
      const refused = await s.gw.admin("PUT", "/admin/models/e-bad", { kind: "embedding", price });
      assertEquals(refused.status, 400, JSON.stringify(price));
      assertOk(JSON.stringify(refused.body).includes("price"), JSON.stringify(refused.body));
    }
    const put = await s.gw.admin("PUT", "/admin/models/e-good", {
      kind: "embedding",
      price: { input: 20_000 },
    });
    assertEquals(put.status, 200, JSON.stringify(put.body));
    assertEquals([put.body.kind, put.body.price], ["embedding", { input: 20_000 }]);
    // A text model's price does not fit an embedding model, nor the reverse.
    const text = await s.gw.admin("PUT", "/admin/models/t", { kind: "text", price: { input: 1 } });
    assertEquals(text.status, 400);
  },
);

Deno.test(
  "embedding models: /v1/models lists them for the key; Gemini's list names embedContent and batchEmbedContents",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    const openai: Json = await (await fetch(`${s.gw.url}/v1/models`, {
      headers: { authorization: `Bearer ${s.key}` },
    })).json();
    assertEquals(
      openai.data.map((model: Json) => model.id).filter((id: string) => id.startsWith("e-")).sort(),
      ["e-ada", "e-gemini", "e-openai"],
    );
    const gemini: Json = await (await fetch(`${s.gw.url}/v1beta/models?pageSize=1000`, {
      headers: { "x-goog-api-key": s.key },
    })).json();
    const entry = gemini.models.find((model: Json) => model.name === "models/e-gemini");
    assertEquals(entry.supportedGenerationMethods, ["embedContent", "batchEmbedContents"]);
    assertOk(
      entry.description.includes("input 3000000 units per million tokens"),
      entry.description,
    );
  },
);

Deno.test(
  "embedding models: the console's Models page shows the price and its calculator prices input tokens",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const page = await client.get("/console/models?model=e-openai&input_tokens=1000");
    assertEquals(page.status, 200);
    const html = await page.text();
    assertOk(html.includes("embedding"), "the kind is shown");
    assertOk(html.includes("per million tokens"), "the price is shown");
    assertOk(html.includes("ceil(1000 input × 3000000 / 1000000) = 3000"), "the estimate");
    // A request's page shows its embedding receipt.
    const answered = await fetch(`${s.gw.url}/v1/embeddings`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "e-openai", input: "receipt please" }),
    });
    await answered.body?.cancel();
    const requestId = answered.headers.get("x-request-id")!;
    await recordOf(s.gw, requestId);
    const detail = await (await client.get(`/console/requests/${requestId}`)).text();
    assertOk(detail.includes("openai-embeddings"), "the interface is shown");
    assertOk(detail.includes("ceil(5 input × 3000000 / 1000000) = 15"), "the receipt's formula");
  },
);

for (const model of ["e-openai", "e-gemini"]) {
  Deno.test(
    `embedding models: the channel test embeds one short text on the ${model} channel, billed nowhere`,
    serverTest,
    async () => {
      await using s = await setupEmbeddings();
      const channel = (await s.gw.admin("GET", "/admin/channels")).body.data.find((
        entry: Json,
      ) => entry.models.includes(model));
      const path = `/admin/channels/${channel.id}/test`;
      const passed = await s.gw.admin("POST", path, { model });
      assertEquals(passed.status, 200, JSON.stringify(passed.body));
      assertEquals(
        { ...passed.body, latency_ms: 0 },
        {
          ok: true,
          status: 200,
          latency_ms: 0,
          model,
          channel_id: channel.id,
          call: "one embedding of a short text (billed upstream, not by the gateway)",
        },
      );
      const upstream = model === "e-openai" ? s.openai : s.gemini;
      assertEquals(upstream.requests.length, 1);
      upstream.faults.push({ status: 500, message: "embedding broke" });
      const failed = await s.gw.admin("POST", path, { model });
      assertEquals([failed.body.ok, failed.body.status], [false, 500]);
      assertOk(failed.body.error.includes("embedding broke"), failed.body.error);
      await s.gw.settle();
      assertEquals((await s.gw.admin("GET", "/admin/requests")).body.data, []);
      assertEquals(await s.gw.balance(s.keyId), s.startBalance);
    },
  );
}
