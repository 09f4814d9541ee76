/**
 * Audio transcriptions under the key's limits and prices: the group's price tier, a spend cap, a
 * balance too low, rpm; the request counted in /metrics under `openai-audio`; a per-token model
 * takes a file whose duration cannot be read (its hold bounded by the file's size).
 */

import OpenAI, { toFile } from "openai";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, type TestGateway } from "../helpers/gateway.ts";
import { SECOND_MODEL, setupAudio, TOKEN_MODEL } from "../helpers/audio_setup.ts";
import { mediaFixture } from "../helpers/media_tools.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const wav = () => toFile(mediaFixture("wav_2500ms.wav"), "a.wav");

async function receiptOf(gw: TestGateway, requestId: string): Promise<Json> {
  for (let i = 0; i < 400; i++) {
    await gw.settle();
    const { status, body } = await gw.admin("GET", `/admin/requests/${requestId}`);
    if (status === 200 && body.receipt) return body.receipt;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`request ${requestId} was not logged`);
}

const clientOf = (gw: TestGateway, key: string) =>
  new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });

Deno.test(
  "a vip key (×0.8) pays the tiered price per second; the receipt says so",
  serverTest,
  async () => {
    await using s = await setupAudio();
    for (const id of [SECOND_MODEL, TOKEN_MODEL]) {
      await s.gw.admin("PATCH", `/admin/models/${id}`, { groups: ["default", "vip"] });
    }
    for (const channel of (await s.gw.admin("GET", "/admin/channels")).body.data) {
      await s.gw.admin("PATCH", `/admin/channels/${channel.id}`, { groups: ["default", "vip"] });
    }
    const put = await s.gw.admin("PUT", "/admin/groups/vip", { price_multiplier: 0.8 });
    assertEquals(put.status, 200, JSON.stringify(put.body));
    const vip = await s.gw.createKey({ balance: 1_000_000, group: "vip" });
    const { response } = await clientOf(s.gw, vip.key).audio.transcriptions.create({
      model: SECOND_MODEL,
      file: await wav(),
    }).withResponse();
    const receipt = await receiptOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(receipt.amount, 12_000);
    assertEquals(receipt.multipliers, { price_multiplier: 0.8 });
    assertEquals(
      receipt.formula,
      "ceil(6000 × 2500 ms input audio × 0.8 (group vip) / 1000) = 12000",
    );
    assertEquals(await s.gw.assertLedgerInvariant(vip.id), 1_000_000 - 12_000);
  },
);

Deno.test(
  "a spend cap below the price and a balance below it: 402, nothing charged",
  serverTest,
  async () => {
    await using s = await setupAudio();
    const capped = await s.gw.createKey({ balance: 1_000_000, spend_limits: { month: 10 } });
    const refused = await clientOf(s.gw, capped.key).audio.transcriptions.create({
      model: SECOND_MODEL,
      file: await wav(),
    }).then(() => undefined, (error) => error);
    assertEquals(refused?.status, 402);
    assertEquals(refused.error?.code, "spend_limit_exceeded");
    await assertNothingCharged({ gw: s.gw, keyId: capped.id }, 1_000_000, { untouched: true });

    const poor = await s.gw.createKey({ balance: 100 });
    const broke = await clientOf(s.gw, poor.key).audio.transcriptions.create({
      model: SECOND_MODEL,
      file: await wav(),
    }).then(() => undefined, (error) => error);
    assertEquals(broke?.status, 402);
    await assertNothingCharged({ gw: s.gw, keyId: poor.id }, 100);
    assertEquals(s.upstream.requests.length, 0);

    // Under a cap that fits, the request goes through and the cap's key pays what its receipt says.
    const roomy = await s.gw.createKey({ balance: 1_000_000, spend_limits: { month: 1_000_000 } });
    const { response } = await clientOf(s.gw, roomy.key).audio.transcriptions.create({
      model: TOKEN_MODEL,
      file: await wav(),
    }).withResponse();
    const receipt = await receiptOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(receipt.status, "settled");
    assertEquals(await s.gw.assertLedgerInvariant(roomy.id), 1_000_000 - receipt.amount);
  },
);

Deno.test(
  "rpm: the second request in the minute is 429; counted in /metrics as openai-audio",
  serverTest,
  async () => {
    await using s = await setupAudio();
    const limited = await s.gw.createKey({ balance: 1_000_000, rpm: 1 });
    const client = clientOf(s.gw, limited.key);
    await client.audio.transcriptions.create({ model: SECOND_MODEL, file: await wav() });
    const second = await client.audio.transcriptions.create({
      model: SECOND_MODEL,
      file: await wav(),
    })
      .then(() => undefined, (error) => error);
    assertEquals(second?.status, 429);
    await s.gw.settle();
    const metrics = await (await fetch(`${s.gw.url}/metrics`)).text();
    assertOk(
      /gateway_requests_total\{[^}]*interface="openai-audio"[^}]*status="200"/.test(metrics),
      "the audio request counted under its interface",
    );
  },
);

Deno.test(
  "a per-token model takes a file whose duration cannot be read, billed by usage",
  serverTest,
  async () => {
    await using s = await setupAudio();
    const { data, response } = await s.client.audio.transcriptions.create({
      model: TOKEN_MODEL,
      file: await toFile(mediaFixture("truncated_wav.wav"), "cut.wav"),
    }).withResponse();
    assertOk(data.text.length > 0);
    assertEquals(response.headers.get("x-gateway-duration-reader"), null);
    const receipt = await receiptOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(receipt.kind, "audio");
    assertOk(receipt.units.input_tokens > 0);
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000 - receipt.amount);
  },
);

Deno.test(
  "a malformed upstream answer fails the request; the hold is given back",
  serverTest,
  async () => {
    await using s = await setupAudio();
    s.upstream.faults.push({ kind: "malformed" }, { kind: "malformed" }, { kind: "malformed" });
    const failed = await s.client.audio.transcriptions.create({
      model: SECOND_MODEL,
      file: await wav(),
    })
      .then(() => undefined, (error) => error);
    assertOk(failed?.status >= 500, String(failed?.status));
    await assertNothingCharged(s, 10_000_000);
  },
);

Deno.test(
  "usage rollups count audio: billed seconds for per-second, tokens for per-token",
  serverTest,
  async () => {
    await using s = await setupAudio();
    const ids: string[] = [];
    for (const model of [SECOND_MODEL, TOKEN_MODEL]) {
      const { response } = await s.client.audio.transcriptions.create({ model, file: await wav() })
        .withResponse();
      ids.push(response.headers.get("x-request-id")!);
    }
    const receipts = await Promise.all(ids.map((id) => receiptOf(s.gw, id)));
    const from = new Date(Date.now() - 2 * 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const { status, body } = await s.gw.admin(
      "GET",
      `/admin/usage?group_by=model&interval=day&from=${from}&to=${to}`,
    );
    assertEquals(status, 200, JSON.stringify(body));
    const row = (model: string) => body.data.find((entry: Json) => entry.model === model);
    assertEquals(row(SECOND_MODEL).seconds, 2.5);
    assertEquals(row(SECOND_MODEL).cost, receipts[0].amount);
    assertEquals(row(TOKEN_MODEL).input_tokens, receipts[1].units.input_tokens);
    assertEquals(row(TOKEN_MODEL).output_tokens, receipts[1].units.output_tokens);
    assertEquals(row(TOKEN_MODEL).cost, receipts[1].amount);
  },
);

Deno.test(
  "a gemini channel never serves an audio model: 503, nothing charged",
  serverTest,
  async () => {
    await using s = await setupAudio();
    await s.gw.putModel("stt-gemini", { kind: "audio", price: { per_second: 1 } });
    await s.gw.addChannel({
      name: "gemini-audio",
      type: "gemini",
      base_url: "https://generativelanguage.googleapis.com",
      keys: ["g-key"],
      models: ["stt-gemini"],
    });
    const refused = await s.client.audio.transcriptions.create({
      model: "stt-gemini",
      file: await wav(),
    }).then(() => undefined, (error) => error);
    assertEquals(refused?.status, 503);
    assertEquals(refused.error?.code, "no_available_channel");
    await assertNothingCharged(s, 10_000_000, { untouched: true });
  },
);

Deno.test(
  "tpm: a per-token transcription's token bound counts against it; per-second ones do not",
  serverTest,
  async () => {
    await using s = await setupAudio();
    const limited = await s.gw.createKey({ balance: 1_000_000, tpm: 100 });
    const client = clientOf(s.gw, limited.key);
    const refused = await client.audio.transcriptions.create({
      model: TOKEN_MODEL,
      file: await wav(),
    })
      .then(() => undefined, (error) => error);
    assertEquals([refused?.status, refused?.code], [429, "tpm_limit_exceeded"]);
    await assertNothingCharged({ gw: s.gw, keyId: limited.id }, 1_000_000);
    const { response } = await client.audio.transcriptions.create({
      model: SECOND_MODEL,
      file: await wav(),
    }).withResponse();
    const receipt = await receiptOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(await s.gw.assertLedgerInvariant(limited.id), 1_000_000 - receipt.amount);
  },
);
