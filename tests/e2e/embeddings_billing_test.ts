/**
 * Embeddings billed like text: the AI SDK's `embed` / `embedMany` (@ai-sdk/openai pointed at the
 * gateway) on both channel types; a key with spend caps holds in the ledger and settles; a group's
 * price multiplier applies; a key that cannot cover the hold gets a 402 and pays nothing; a key's
 * tokens per minute count embedding tokens.
 */

import { embed, embedMany } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import {
  EMBEDDING_PRICE,
  recordOf,
  setupEmbeddings,
  walletMatchesReceipts,
} from "../helpers/embedding_setup.ts";
import { simulatedVector } from "../upstream/embedding_vectors.ts";
import { simulatedTokens } from "../upstream/openai_embeddings.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function post(url: string, key: string, body: unknown): Promise<Response> {
  return await fetch(`${url}/v1/embeddings`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

Deno.test(
  "embeddings billing: the AI SDK's embed and embedMany on an openai and a gemini channel",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    const provider = createOpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1` });
    for (
      const [model, upstreamModel] of [
        ["e-openai", "text-embedding-3-small"],
        ["e-gemini", "gemini-embedding-001"],
      ]
    ) {
      const one = await embed({
        model: provider.embedding(model),
        value: "sunny day",
        maxRetries: 0,
      });
      assertEquals(
        one.embedding,
        simulatedVector(upstreamModel, "sunny day", one.embedding.length),
      );
      assertOk(one.usage.tokens > 0);
      const values = ["rainy day", "snowy day", "windy day"];
      const many = await embedMany({
        model: provider.embedding(model),
        values,
        maxRetries: 0,
        providerOptions: { openai: { dimensions: 12 } },
      });
      assertEquals(many.embeddings, values.map((text) => simulatedVector(upstreamModel, text, 12)));
    }
    const records = await walletMatchesReceipts(s);
    assertEquals(records.length, 4);
    // The usage rollups and the metrics count them like any request.
    const usage = (await s.gw.admin("GET", "/admin/usage?group_by=model&interval=day")).body.data;
    const rolled = usage.filter((row: Json) =>
      row.model === "e-openai" || row.model === "e-gemini"
    );
    assertEquals(rolled.reduce((sum: number, row: Json) => sum + row.requests, 0), 4);
    assertEquals(
      rolled.reduce((sum: number, row: Json) => sum + row.cost, 0),
      records.reduce((sum: number, record: Json) => sum + record.receipt.charged, 0),
    );
    const metrics = await (await fetch(`${s.gw.url}/metrics`, {
      headers: { authorization: "Bearer test-admin-token" },
    })).text();
    assertOk(
      metrics.split("\n").some((line) =>
        line.startsWith("gateway_requests_total{") && line.includes('"openai-embeddings"')
      ),
      "the metrics name the interface",
    );
    assertEquals(
      records.map((record: Json) => record.usage_source),
      ["upstream", "upstream", "estimate", "estimate"],
    );
  },
);

Deno.test(
  "embeddings billing: a key with spend caps holds and settles; a vip group pays its multiplier; a key that cannot cover the hold gets a 402 at no charge",
  serverTest,
  async () => {
    await using s = await setupEmbeddings({ key: { spend_limits: { day: 5_000_000 } } });
    const answered = await post(s.gw.url, s.key, { model: "e-openai", input: "hold me" });
    assertEquals(answered.status, 200);
    const record = await recordOf(s.gw, answered.headers.get("x-request-id")!);
    assertEquals(record.receipt.status, "settled");
    const tokens = simulatedTokens("hold me");
    assertEquals(record.receipt.amount, tokens * 3);
    const types = (await s.gw.ledger(s.keyId)).map((entry) => entry.type);
    assertOk(types.includes("hold") && types.includes("settle"), types.join(","));

    // The day's cap counts the hold: 3 units a byte of a 2,000,000-byte text is past it.
    const capped = await post(s.gw.url, s.key, { model: "e-openai", input: "x".repeat(2_000_000) });
    assertEquals(capped.status, 402);
    assertEquals((await capped.json()).error.code, "spend_limit_exceeded");

    // ×0.5 for group vip.
    await s.gw.admin("PATCH", "/admin/models/e-openai", { groups: ["default", "vip"] });
    for (const channel of (await s.gw.admin("GET", "/admin/channels")).body.data) {
      await s.gw.admin("PATCH", `/admin/channels/${channel.id}`, { groups: ["default", "vip"] });
    }
    await s.gw.admin("PUT", "/admin/groups/vip", { description: "", price_multiplier: 0.5 });
    const vip = await s.gw.createKey({ group: "vip", balance: 1_000_000 });
    const text = "a text of some thirty characters";
    const cheap = await post(s.gw.url, vip.key, { model: "e-openai", input: text });
    assertEquals(cheap.status, 200);
    const vipRecord = await recordOf(s.gw, cheap.headers.get("x-request-id")!);
    const vipTokens = simulatedTokens(text);
    assertEquals(
      vipRecord.receipt.amount,
      Math.ceil(vipTokens * EMBEDDING_PRICE.input * 0.5 / 1e6),
    );
    assertEquals(vipRecord.receipt.multipliers, { price_multiplier: 0.5 });
    assertOk(vipRecord.receipt.formula.includes("× 0.5 (group vip)"), vipRecord.receipt.formula);

    // The hold is 3 units a UTF-8 byte: 10 units cannot cover 4 bytes.
    const poor = await s.gw.createKey({ balance: 10 });
    const refused = await post(s.gw.url, poor.key, { model: "e-openai", input: "four" });
    assertEquals(refused.status, 402);
    assertEquals((await refused.json()).error.type, "insufficient_quota");
    assertEquals(await s.gw.balance(poor.id), 10);
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "embeddings billing: a key's tokens per minute count the input's estimate: a request past it is a 429 at no charge",
  serverTest,
  async () => {
    await using s = await setupEmbeddings({ key: { tpm: 20 } });
    const first = await post(s.gw.url, s.key, { model: "e-openai", input: "x".repeat(40) });
    assertEquals(first.status, 200);
    await first.body?.cancel();
    const second = await post(s.gw.url, s.key, { model: "e-openai", input: "x".repeat(40) });
    assertEquals(second.status, 429);
    await second.body?.cancel();
    const records = await walletMatchesReceipts(s);
    assertEquals(records.map((record: Json) => record.status), [200, 429]);
  },
);
