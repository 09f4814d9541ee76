/**
 * The console's Models page over HTTP: the catalog with prices, Disable/Enable followed by the
 * API at once (audited), and the cost calculator priced by the billing code's own functions.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest, TEST_TEXT_PRICE } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";
import { textCost } from "../../../core/billing/text_price.ts";

const ask = { model: MODEL, messages: [{ role: "user", content: "hi" }] };

Deno.test(
  "console models: the catalog with prices; disable answers 404 at the API, enable serves again; audited",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const page = await (await client.get("/console/models")).text();
    assertOk(page.includes(`<code>${MODEL}</code>`), "lists the model");
    assertOk(page.includes("input $1.000000, cached $0.500000, output $2.000000"), "its price");
    assertOk(page.includes("<code>vid-2-cheap</code>") && page.includes("$0.500000 per task"));

    const off = await client.post(`/console/models/${MODEL}/enabled`, { enabled: "false" });
    await off.body?.cancel();
    assertEquals(off.status, 303);
    const refused = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    assertEquals(refused.status, 404);
    await refused.body?.cancel();
    await (await client.post(`/console/models/${MODEL}/enabled`, { enabled: "true" })).body
      ?.cancel();
    const back = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    await back.body?.cancel();
    assertEquals(back.status, 200);

    const audit = (await s.gw.admin("GET", `/admin/audit?target_kind=model&actor=console`)).body
      .data;
    assertEquals(audit.map((record: { after: { enabled: boolean } }) => record.after.enabled), [
      true,
      false,
    ]);
    const unknown = await client.post("/console/models/no-such/enabled", { enabled: "false" });
    await unknown.body?.cancel();
    assertEquals(unknown.status, 404);
  },
);

Deno.test(
  "console models: the calculator shows units × price = amount as billing computes it; bad input is a 400",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const text = await client.get(
      `/console/models?model=${MODEL}&input_tokens=1234&cached_input_tokens=200&output_tokens=567`,
    );
    const html = await text.text();
    assertEquals(text.status, 200);
    const amount = textCost(TEST_TEXT_PRICE, {
      input_tokens: 1234,
      cached_input_tokens: 200,
      output_tokens: 567,
    });
    assertOk(html.includes(`${amount} units`), `the amount ${amount}`);
    assertOk(html.includes("1034 uncached input × 1000000"), "the formula");

    const image = await (await client.get("/console/models?model=gen-image-2&images=3")).text();
    assertOk(image.includes("3 images × 40000 = 120000"), "images × price");
    const video = await (await client.get("/console/models?model=vid-2&seconds=5")).text();
    assertOk(video.includes("= 500000"), "seconds × price");

    for (
      const query of [
        `model=${MODEL}&input_tokens=-1`,
        `model=${MODEL}&input_tokens=10&cached_input_tokens=20`,
        "model=gen-image-2&images=lots",
        "model=no-such-model",
      ]
    ) {
      const response = await client.get(`/console/models?${query}`);
      assertEquals(response.status, 400, query);
      assertOk((await response.text()).includes('role="alert"'), query);
    }
  },
);

Deno.test(
  "console models: each group with a price multiplier shows the price its callers pay; the calculator prices a group",
  serverTest,
  async () => {
    await using s = await setupChat();
    await s.gw.admin("PATCH", `/admin/models/${MODEL}`, { groups: ["default", "vip"] });
    await s.gw.admin("PUT", "/admin/groups/vip", { price_multiplier: 0.8 });
    await s.gw.admin("PUT", "/admin/groups/other", { price_multiplier: 1.25 });
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const page = await (await client.get("/console/models")).text();
    assertOk(
      page.includes("input $1.000000, cached $0.500000, output $2.000000"),
      "the catalog price",
    );
    assertOk(
      page.includes("vip ×0.8: input $0.800000, cached $0.400000, output $1.600000"),
      "the vip price",
    );
    // `other` is not a group of any text model here, so no model row shows it for text.
    assertOk(!page.includes("other ×1.25: input"), "only the model's own groups");

    const priced = await (await client.get(
      `/console/models?model=${MODEL}&input_tokens=1000&output_tokens=501&group=vip`,
    )).text();
    assertOk(priced.includes("× 0.8 (group vip) / 1000000) = 1602"), "the tier in the formula");
  },
);

Deno.test(
  "console models: rerank and moderation models with their price units, and the calculator prices them",
  serverTest,
  async () => {
    await using s = await setupChat();
    await s.gw.putModel("rerank-search", { kind: "rerank", price: { per_search: 2_000 } });
    await s.gw.putModel("rerank-tokens", { kind: "rerank", price: { input: 50_000 } });
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const page = await (await client.get("/console/models")).text();
    assertOk(
      page.includes("$0.002000 per search unit (a query with up to 100 documents)"),
      "search",
    );
    assertOk(page.includes("$0.050000 per million tokens"), "tokens");
    // The built-in moderation model, free by default.
    assertOk(page.includes("<code>omni-moderation-latest</code>"), "moderation listed");
    assertOk(page.includes("$0.000000 per request"), "free per request");
    const search = await (await client.get("/console/models?model=rerank-search&documents=150"))
      .text();
    assertOk(search.includes("2 search units × 2000 = 4000"), "documents → search units");
    const tokens = await (await client.get("/console/models?model=rerank-tokens&input_tokens=1000"))
      .text();
    assertOk(tokens.includes("ceil(1000 tokens × 50000 / 1000000) = 50"), "tokens × price");
    const moderation = await (await client.get("/console/models?model=omni-moderation-latest"))
      .text();
    assertOk(moderation.includes("1 request × 0 = 0"), "one free request");
    const bad = await client.get("/console/models?model=rerank-search&documents=many");
    assertEquals(bad.status, 400);
    await bad.body?.cancel();
  },
);
