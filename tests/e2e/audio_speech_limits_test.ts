/**
 * Speech under a key's limits: a price tier (×0.8) on the receipt and in the wallet; a balance or
 * a spend cap that cannot cover the input's price refuses before the upstream is called, with
 * nothing charged; the key's rpm counts speech requests.
 */

import OpenAI from "openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { serverTest } from "../helpers/gateway.ts";
import { CLASSIC_SPEECH_MODEL, setupSpeech, SPEECH_MODEL } from "../helpers/speech_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const INPUT = "Twenty-one characters"; // 21 characters: 315 units at 15

async function refusedWith(client: OpenAI, status: number): Promise<Json> {
  try {
    await client.audio.speech.create({ model: SPEECH_MODEL, input: INPUT, voice: "alloy" });
  } catch (error) {
    assertOk(error instanceof OpenAI.APIError, String(error));
    assertEquals((error as InstanceType<typeof OpenAI.APIError>).status, status, String(error));
    return (error as InstanceType<typeof OpenAI.APIError>).error;
  }
  throw new Error("accepted");
}

Deno.test(
  "speech: a vip key (×0.8) pays ceil(0.8 × the price); its receipt shows it",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    for (const id of [SPEECH_MODEL, CLASSIC_SPEECH_MODEL]) {
      await s.gw.admin("PATCH", `/admin/models/${id}`, { groups: ["default", "vip"] });
    }
    await s.gw.admin("PATCH", `/admin/channels/${s.channelId}`, { groups: ["default", "vip"] });
    const put = await s.gw.admin("PUT", "/admin/groups/vip", { price_multiplier: 0.8 });
    assertEquals(put.status, 200, JSON.stringify(put.body));
    const vip = await s.gw.createKey({ group: "vip", balance: 1_000_000 });
    const client = new OpenAI({ apiKey: vip.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const { data, response } = await client.audio.speech.create({
      model: SPEECH_MODEL,
      input: INPUT,
      voice: "alloy",
    }).withResponse();
    await data.arrayBuffer();
    await s.gw.settle();
    const record =
      (await s.gw.admin("GET", `/admin/requests/${response.headers.get("x-request-id")}`))
        .body;
    assertEquals(record.cost, 252);
    assertEquals(record.receipt.formula, "ceil(21 characters × 15 × 0.8 (group vip)) = 252");
    assertEquals(record.receipt.multipliers, { price_multiplier: 0.8 });
    assertEquals(await s.gw.balance(vip.id), 1_000_000 - 252);
    await s.gw.assertLedgerInvariant(vip.id);
  },
);

Deno.test(
  "speech: a balance or a spend cap short of the price refuses before the upstream; nothing charged",
  serverTest,
  async () => {
    await using s = await setupSpeech({ balance: 300 });
    const poor = await refusedWith(s.client, 402);
    assertOk(String(poor.message).includes("shorter input"), poor.message);
    await assertNothingCharged(s, 300);
    const capped = await s.gw.createKey({ balance: 1_000_000, spend_limits: { day: 300 } });
    const cappedClient = new OpenAI({
      apiKey: capped.key,
      baseURL: `${s.gw.url}/v1`,
      maxRetries: 0,
    });
    const over = await refusedWith(cappedClient, 402);
    assertOk(String(over.message).includes("spend limit"), over.message);
    await assertNothingCharged({ gw: s.gw, keyId: capped.id }, 1_000_000);
    assertEquals(s.upstream.requests.length, 0, "the upstream was never called");
  },
);

Deno.test("speech: the key's rpm counts speech requests", serverTest, async () => {
  await using s = await setupSpeech({ key: { rpm: 1 } });
  const first = await s.client.audio.speech.create({
    model: SPEECH_MODEL,
    input: INPUT,
    voice: "alloy",
  });
  await first.arrayBuffer();
  await refusedWith(s.client, 429);
  assertEquals(s.upstream.requests.length, 1);
});
