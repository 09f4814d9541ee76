/**
 * Price tiers end to end: a key in group `vip` (×0.8) pays 0.8 × the catalog price, rounded up
 * once, for chat (streamed and not), images and video tasks; its receipts show the multiplier;
 * its model list shows the price it pays.
 */

import OpenAI from "openai";
import { GoogleGenAI } from "@google/genai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, type TestGateway } from "../helpers/gateway.ts";
import { MODEL, setupChat } from "../helpers/text_setup.ts";
import { IMAGE_MODEL, setupImages } from "../helpers/image_setup.ts";
import { setupVideo } from "../helpers/video_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The request's record once everything about it is written (a task's, once it ended). */
async function recordOf(gw: TestGateway, requestId: string): Promise<Json> {
  for (let i = 0; i < 400; i++) {
    await gw.settle();
    const { status, body } = await gw.admin("GET", `/admin/requests/${requestId}`);
    if (status === 200 && !body.task_pending && body.receipt) return body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`request ${requestId} was not completed`);
}

/** Opens `models` and every channel to group `vip` too, and makes `vip` ×0.8. */
async function openToVip(gw: TestGateway, models: string[]) {
  for (const id of models) {
    const patched = await gw.admin("PATCH", `/admin/models/${id}`, { groups: ["default", "vip"] });
    assertEquals(patched.status, 200, JSON.stringify(patched.body));
  }
  for (const channel of (await gw.admin("GET", "/admin/channels")).body.data) {
    await gw.admin("PATCH", `/admin/channels/${channel.id}`, { groups: ["default", "vip"] });
  }
  const put = await gw.admin("PUT", "/admin/groups/vip", {
    description: "good customers",
    price_multiplier: 0.8,
  });
  assertEquals(put.status, 200, JSON.stringify(put.body));
}

/** The exact base cost of a text receipt's units, in millionths of a unit. */
function baseMicros(receipt: Json): number {
  const { units, prices } = receipt;
  return (units.input_tokens - units.cached_input_tokens) * prices.input +
    units.cached_input_tokens * prices.cached_input + units.output_tokens * prices.output;
}

Deno.test(
  "a vip (×0.8) key pays 0.8× for chat, streamed and not; receipts show it",
  serverTest,
  async () => {
    await using s = await setupChat();
    await openToVip(s.gw, [MODEL]);
    const vip = await s.gw.createKey({ group: "vip", balance: 10_000_000 });
    const client = new OpenAI({ apiKey: vip.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const plain = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Tell me about the sea in a few words" }],
    }).withResponse();
    const { response: streamed, data: stream } = await client.chat.completions.create({
      model: MODEL,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "And about the mountains, please" }],
    }).withResponse();
    for await (const _chunk of stream) { /* read to the end */ }

    let total = 0;
    for (const response of [plain.response, streamed]) {
      const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
      const receipt = record.receipt;
      // Rounded up once: ceil(base exact × 0.8), in integers.
      assertEquals(receipt.amount, Math.ceil(baseMicros(receipt) * 8 / 10 / 1_000_000));
      assertOk(receipt.amount < Math.ceil(baseMicros(receipt) / 1_000_000));
      assertEquals(receipt.multipliers, { price_multiplier: 0.8 });
      assertOk(receipt.formula.includes(") × 0.8 (group vip) / 1000000) = "), receipt.formula);
      assertEquals(receipt.charged, receipt.amount);
      assertEquals(record.cost, receipt.amount);
      total += receipt.amount;
    }
    assertEquals(await s.gw.assertLedgerInvariant(vip.id), 10_000_000 - total);

    // A default-group key's receipt is as it was: no multiplier.
    await s.client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Tell me about the sea in a few words" }],
    });
    await s.gw.settle();
    const own = (await s.gw.admin("GET", `/admin/requests?key=${s.keyId}`)).body.data[0];
    assertEquals(own.receipt.multipliers, {});
    assertOk(!own.receipt.formula.includes("group"), own.receipt.formula);
    assertEquals(own.receipt.amount, Math.ceil(baseMicros(own.receipt) / 1_000_000));
  },
);

Deno.test("a vip key's model list shows the price it pays", serverTest, async () => {
  await using s = await setupChat();
  await openToVip(s.gw, [MODEL]);
  const vip = await s.gw.createKey({ group: "vip", balance: 1_000 });
  const ai = new GoogleGenAI({ apiKey: vip.key, httpOptions: { baseUrl: s.gw.url } });
  const model = await ai.models.get({ model: MODEL });
  assertOk(
    model.description!.endsWith(
      "Price (group vip ×0.8): input 800000, cached input 400000, output 1600000 units per million tokens.",
    ),
    model.description,
  );
  const own = new GoogleGenAI({ apiKey: s.key, httpOptions: { baseUrl: s.gw.url } });
  assertOk(
    (await own.models.get({ model: MODEL })).description!.endsWith(
      "Price: input 1000000, cached input 500000, output 2000000 units per million tokens.",
    ),
  );
  // The Gemini shape on /v1/models too.
  const listed = await fetch(`${s.gw.url}/v1/models/${MODEL}`, {
    headers: { "x-goog-api-key": vip.key },
  });
  assertOk((await listed.json()).description.includes("Price (group vip ×0.8)"));
  // Deleting the record puts the group back at ×1, at once on this instance.
  assertEquals((await s.gw.admin("DELETE", "/admin/groups/vip")).status, 204);
  assertOk(
    (await ai.models.get({ model: MODEL })).description!.endsWith(
      "Price: input 1000000, cached input 500000, output 2000000 units per million tokens.",
    ),
  );
});

Deno.test("a vip key pays 0.8× for images; the receipt shows it", serverTest, async () => {
  await using s = await setupImages("openai-images");
  await openToVip(s.gw, [IMAGE_MODEL]);
  const vip = await s.gw.createKey({ group: "vip", balance: 10_000_000 });
  const client = new OpenAI({ apiKey: vip.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
  const { response } = await client.images.generate({ model: IMAGE_MODEL, prompt: "kite", n: 2 })
    .withResponse();
  const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
  // 2 × 40000 × 0.8
  assertEquals(record.receipt.amount, 64_000);
  assertEquals(record.receipt.formula, "ceil(2 images × 40000 × 0.8 (group vip)) = 64000");
  assertEquals(record.cost, 64_000);
  assertEquals(await s.gw.assertLedgerInvariant(vip.id), 10_000_000 - 64_000);

  // The hold is the multiplied worst case: 64000 covers two vip images (80000 at ×1).
  const exact = await s.gw.createKey({ group: "vip", balance: 64_000 });
  const exactClient = new OpenAI({ apiKey: exact.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
  await exactClient.images.generate({ model: IMAGE_MODEL, prompt: "kite", n: 2 });
  assertEquals(await s.gw.assertLedgerInvariant(exact.id), 0);
  const plain = await s.gw.createKey({ balance: 64_000 });
  const plainClient = new OpenAI({ apiKey: plain.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
  const refused = await plainClient.images.generate({ model: IMAGE_MODEL, prompt: "kite", n: 2 })
    .catch((error) => error);
  assertEquals(refused.status, 402);
  assertEquals(await s.gw.assertLedgerInvariant(plain.id), 64_000);
});

Deno.test("a vip key's video tasks hold and settle 0.8× the price", serverTest, async () => {
  await using s = await setupVideo();
  await openToVip(s.gw, ["vid-2", "vid-2-cheap"]);
  const vip = await s.gw.createKey({ group: "vip", balance: 10_000_000 });
  const submit = (fields: Record<string, string>) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    return fetch(`${s.gw.url}/v1/video/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${vip.key}` },
      body: form,
    });
  };
  const cases: Array<[Record<string, string>, number, string]> = [
    // 100000 per second × 5000 ms × 0.8
    [
      { model: "vid-2", prompt: "a walk", duration: "5" },
      400_000,
      "ceil(100000 × (5000 ms output) × 0.8 (group vip) / 1000) = 400000",
    ],
    // 500000 per task × 0.8
    [
      { model: "vid-2-cheap", prompt: "a run" },
      400_000,
      "ceil(500000 per task × 0.8 (group vip)) = 400000",
    ],
  ];
  let total = 0;
  for (const [fields, amount, formula] of cases) {
    const response = await submit(fields);
    assertEquals(response.status, 200, await response.clone().text());
    const taskId = (await response.json()).id;
    const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.task_id, taskId);
    assertEquals(record.task_status, "succeeded");
    assertEquals([record.receipt.held, record.receipt.amount], [amount, amount]);
    assertEquals(record.receipt.formula, formula);
    total += amount;
  }
  assertEquals(await s.gw.assertLedgerInvariant(vip.id), 10_000_000 - total);
});
