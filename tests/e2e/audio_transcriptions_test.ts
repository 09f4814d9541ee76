/**
 * Audio transcriptions and translations through the openai SDK against a simulated OpenAI Audio
 * upstream: each answer format, a stream, per-second and per-token billing, each checked against
 * the request's receipt and the wallet's ledger; bad input refused with nothing charged.
 */

import { toFile } from "openai";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, type TestGateway } from "../helpers/gateway.ts";
import {
  type AudioSetup,
  SECOND_MODEL,
  SECOND_PRICE,
  setupAudio,
  TOKEN_MODEL,
  TOKEN_PRICE,
} from "../helpers/audio_setup.ts";
import { billedSecondsOf, mediaFixture } from "../helpers/media_tools.ts";
import { simulatedTranscript, simulatedUsage } from "../upstream/openai_audio.ts";

const OPENING = 10_000_000;
const WAV = "wav_2500ms.wav";

/** A committed fixture as a Blob. */
const fixtureBlob = (file: string, type?: string) =>
  new Blob([mediaFixture(file) as Uint8Array<ArrayBuffer>], { type });

// deno-lint-ignore no-explicit-any
type Json = any;

/** The request's record once its bill is written. */
async function recordOf(gw: TestGateway, requestId: string): Promise<Json> {
  for (let i = 0; i < 400; i++) {
    await gw.settle();
    const { status, body } = await gw.admin("GET", `/admin/requests/${requestId}`);
    if (status === 200 && body.receipt) return body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`request ${requestId} was not logged`);
}

/** Checks the wallet took exactly what the receipts say, and the ledger verifies. */
async function assertWalletMatches(s: AudioSetup, receipts: Json[]) {
  const charged = receipts.reduce((sum, receipt) => sum + receipt.charged, 0);
  for (const receipt of receipts) assertEquals(receipt.charged, receipt.amount);
  assertEquals(await s.gw.assertLedgerInvariant(s.keyId), OPENING - charged);
  const verified = await s.gw.admin("GET", `/admin/keys/${s.keyId}/ledger/verify`);
  assertEquals(verified.status, 200, JSON.stringify(verified.body));
  assertOk(verified.body.ok !== false, JSON.stringify(verified.body));
}

const wavFile = () => toFile(mediaFixture(WAV), "speech.wav", { type: "audio/wav" });
const wavBytes = () => mediaFixture(WAV).length;

/** 2.5 s at 6,000 units a second. */
const SECOND_COST = Math.ceil(SECOND_PRICE.per_second * billedSecondsOf(WAV));

function tokenCost(usage: { input_tokens: number; output_tokens: number }) {
  return Math.ceil(
    (usage.input_tokens * TOKEN_PRICE.input + usage.output_tokens * TOKEN_PRICE.output) / 1e6,
  );
}

Deno.test(
  "transcriptions json, per second: the text, the receipt and the wallet",
  serverTest,
  async () => {
    await using s = await setupAudio();
    const { data, response } = await s.client.audio.transcriptions.create({
      model: SECOND_MODEL,
      file: await wavFile(),
      language: "en",
      prompt: "a tone",
      temperature: 0.2,
    }).withResponse();
    assertEquals(data.text, simulatedTranscript("transcriptions", wavBytes()));
    assertEquals(response.headers.get("content-type"), "application/json");
    assertEquals(response.headers.get("x-gateway-billing"), "per_second");
    assertEquals(response.headers.get("x-gateway-billed-seconds"), "2.5");
    assertEquals(response.headers.get("x-gateway-cost-units"), String(SECOND_COST));
    const sent = s.upstream.requests[0];
    assertEquals(sent.fields.find(([name]) => name === "model")?.[1], "whisper-1");
    assertEquals(sent.fields.find(([name]) => name === "language")?.[1], "en");
    assertEquals(sent.file?.filename, "speech.wav");
    assertEquals(sent.file?.size, wavBytes());
    const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.interface, "openai-audio");
    assertEquals(record.billed_seconds, 2.5);
    assertEquals(record.receipt.kind, "audio");
    assertEquals(record.receipt.units.billed_seconds, 2.5);
    assertEquals(
      record.receipt.formula,
      `ceil(6000 × 2500 ms input audio / 1000) = ${SECOND_COST}`,
    );
    assertEquals(record.receipt.amount, SECOND_COST);
    await assertWalletMatches(s, [record.receipt]);
  },
);

Deno.test(
  "transcriptions text, srt, vtt and verbose_json: content types and bodies",
  serverTest,
  async () => {
    await using s = await setupAudio();
    const receipts: Json[] = [];
    for (const format of ["text", "srt", "vtt"] as const) {
      const { data, response } = await s.client.audio.transcriptions.create({
        model: SECOND_MODEL,
        file: await wavFile(),
        response_format: format,
      }).withResponse();
      assertEquals(response.headers.get("content-type"), "text/plain; charset=utf-8", format);
      assertOk(String(data).includes(simulatedTranscript("transcriptions", wavBytes())), format);
      if (format === "vtt") assertOk(String(data).startsWith("WEBVTT"));
      if (format === "srt") assertOk(String(data).startsWith("1\n00:00:00,000 --> "));
      receipts.push((await recordOf(s.gw, response.headers.get("x-request-id")!)).receipt);
    }
    const verbose = await s.client.audio.transcriptions.create({
      model: SECOND_MODEL,
      file: await wavFile(),
      response_format: "verbose_json",
      timestamp_granularities: ["word", "segment"],
    }).withResponse();
    assertEquals(verbose.data.duration, 2.5);
    assertOk((verbose.data.words?.length ?? 0) > 0);
    const sent = s.upstream.requests.at(-1)!.fields.filter(([name]) =>
      name === "timestamp_granularities[]"
    );
    assertEquals(sent.map(([, value]) => value), ["word", "segment"]);
    receipts.push((await recordOf(s.gw, verbose.response.headers.get("x-request-id")!)).receipt);
    assertEquals(receipts.map((receipt) => receipt.amount), Array(4).fill(SECOND_COST));
    await assertWalletMatches(s, receipts);
  },
);

Deno.test(
  "transcriptions json, per token: billed from the upstream's usage",
  serverTest,
  async () => {
    await using s = await setupAudio();
    const { data, response } = await s.client.audio.transcriptions.create({
      model: TOKEN_MODEL,
      file: await wavFile(),
      prompt: "two words",
    }).withResponse();
    const text = simulatedTranscript("transcriptions", wavBytes());
    const usage = simulatedUsage(wavBytes(), "two words", text);
    assertEquals(data.text, text);
    assertEquals((data as Json).usage.input_tokens, usage.input_tokens);
    assertEquals(response.headers.get("x-gateway-billing"), "per_token");
    const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.usage_source, "upstream");
    assertEquals(record.input_tokens, usage.input_tokens);
    assertEquals(record.output_tokens, usage.output_tokens);
    assertEquals(record.receipt.units, {
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
    });
    assertEquals(record.receipt.amount, tokenCost(usage));
    assertEquals(
      record.receipt.formula,
      `ceil((${usage.input_tokens} input × 2500000 + ${usage.output_tokens} output × 10000000) / 1000000) = ${
        tokenCost(usage)
      }`,
    );
    await assertWalletMatches(s, [record.receipt]);
  },
);

Deno.test(
  "transcriptions stream: delta events then done, billed from the done event's usage",
  serverTest,
  async () => {
    await using s = await setupAudio();
    const { data: stream, response } = await s.client.audio.transcriptions.create({
      model: TOKEN_MODEL,
      file: await wavFile(),
      stream: true,
    }).withResponse();
    assertEquals(response.headers.get("content-type"), "text/event-stream");
    let deltas = "";
    let done: Json;
    for await (const event of stream) {
      if (event.type === "transcript.text.delta") deltas += event.delta;
      if (event.type === "transcript.text.done") done = event;
    }
    const text = simulatedTranscript("transcriptions", wavBytes());
    assertEquals(deltas, text);
    assertEquals(done.text, text);
    const usage = simulatedUsage(wavBytes(), "", text);
    const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.stream, true);
    assertEquals(record.receipt.amount, tokenCost(usage));
    await assertWalletMatches(s, [record.receipt]);
  },
);

Deno.test(
  "a stream cut before its done event is billed by the estimate of what came",
  serverTest,
  async () => {
    await using s = await setupAudio();
    s.upstream.faults.push({ kind: "cut_stream" });
    const { data: stream, response } = await s.client.audio.transcriptions.create({
      model: TOKEN_MODEL,
      file: await wavFile(),
      stream: true,
    }).withResponse();
    const types: string[] = [];
    for await (const event of stream) types.push((event as Json).type);
    assertEquals(types, ["transcript.text.delta"]);
    const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.usage_source, "estimate");
    assertOk(record.receipt.amount > 0);
    await assertWalletMatches(s, [record.receipt]);
  },
);

Deno.test(
  "whisper-1 ignores stream=true as OpenAI documents: its whole answer comes as the stream's events",
  serverTest,
  async () => {
    await using s = await setupAudio();
    const { data: stream, response } = await s.client.audio.transcriptions.create({
      model: SECOND_MODEL,
      file: await wavFile(),
      stream: true,
    }).withResponse();
    assertEquals(response.headers.get("content-type"), "text/event-stream");
    const events: Json[] = [];
    for await (const event of stream) events.push(event);
    const text = simulatedTranscript("transcriptions", wavBytes());
    assertEquals(events, [
      { type: "transcript.text.delta", delta: text },
      { type: "transcript.text.done", text },
    ]);
    const sent = s.upstream.requests[0].fields.find(([name]) => name === "stream");
    assertEquals(sent?.[1], "true");
    const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.receipt.amount, SECOND_COST);

    // srt has no stream events: the whole answer, with `stream` named as not honoured.
    const form = new FormData();
    form.append("model", SECOND_MODEL);
    form.append("response_format", "srt");
    form.append("stream", "true");
    form.append("file", fixtureBlob(WAV), "a.wav");
    const srt = await fetch(`${s.gw.url}/v1/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}` },
      body: form,
    });
    assertEquals(srt.headers.get("content-type"), "text/plain; charset=utf-8");
    assertEquals(srt.headers.get("x-gateway-ignored-fields"), "stream");
    assertOk((await srt.text()).startsWith("1\n"));
    const srtRecord = await recordOf(s.gw, srt.headers.get("x-request-id")!);
    await assertWalletMatches(s, [record.receipt, srtRecord.receipt]);
  },
);

Deno.test("translations.create per second, json and text", serverTest, async () => {
  await using s = await setupAudio();
  const json = await s.client.audio.translations.create({
    model: SECOND_MODEL,
    file: await toFile(mediaFixture("mp3_2s.mp3"), "clip.mp3"),
  }).withResponse();
  assertEquals(
    json.data.text,
    simulatedTranscript("translations", mediaFixture("mp3_2s.mp3").length),
  );
  assertEquals(s.upstream.requests[0].path, "/v1/audio/translations");
  const text = await s.client.audio.translations.create({
    model: SECOND_MODEL,
    file: await wavFile(),
    response_format: "text",
  }).withResponse();
  assertEquals(text.response.headers.get("content-type"), "text/plain; charset=utf-8");
  const receipts = [
    (await recordOf(s.gw, json.response.headers.get("x-request-id")!)).receipt,
    (await recordOf(s.gw, text.response.headers.get("x-request-id")!)).receipt,
  ];
  assertEquals(receipts[0].units.billed_seconds, billedSecondsOf("mp3_2s.mp3"));
  assertEquals(receipts[1].amount, SECOND_COST);
  await assertWalletMatches(s, receipts);
});

/** Posts a raw multipart form to the transcription route. */
async function postForm(s: AudioSetup, form: FormData) {
  const response = await fetch(`${s.gw.url}/v1/audio/transcriptions`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.key}` },
    body: form,
  });
  return { status: response.status, body: await response.json() };
}

Deno.test(
  "bad input: 4xx in OpenAI's envelope, nothing charged, nothing sent upstream",
  serverTest,
  async () => {
    await using s = await setupAudio();
    const wav = fixtureBlob(WAV, "audio/wav");
    const cases: Array<[string, FormData, number, string]> = [];
    const form = (fields: Record<string, string | [Blob, string]>) => {
      const data = new FormData();
      for (const [name, value] of Object.entries(fields)) {
        if (typeof value === "string") data.append(name, value);
        else data.append(name, value[0], value[1]);
      }
      return data;
    };
    cases.push(["missing model", form({ file: [wav, "a.wav"] }), 400, "model"]);
    cases.push(["missing file", form({ model: SECOND_MODEL }), 400, "file"]);
    cases.push([
      "bad response_format",
      form({ model: SECOND_MODEL, file: [wav, "a.wav"], response_format: "xml" }),
      400,
      "response_format",
    ]);
    cases.push([
      "granularities without verbose_json",
      form({ model: SECOND_MODEL, file: [wav, "a.wav"], "timestamp_granularities[]": "word" }),
      400,
      "timestamp_granularities[]",
    ]);
    cases.push([
      "a PNG named .wav",
      form({
        model: SECOND_MODEL,
        file: [new Blob([Uint8Array.fromBase64(PNG_1X1)], { type: "audio/wav" }), "a.wav"],
      }),
      400,
      "file",
    ]);
    cases.push([
      "garbage bytes",
      form({ model: TOKEN_MODEL, file: [fixtureBlob("garbage.bin"), "a.mp3"] }),
      400,
      "file",
    ]);
    cases.push([
      "a corrupt WAV on a per-second model",
      form({ model: SECOND_MODEL, file: [fixtureBlob("truncated_wav.wav"), "a.wav"] }),
      400,
      "file",
    ]);
    for (const [name, data, status, param] of cases) {
      const answer = await postForm(s, data);
      assertEquals(answer.status, status, `${name}: ${JSON.stringify(answer.body)}`);
      assertEquals(answer.body.error.param, param, name);
      assertOk(typeof answer.body.error.message === "string", name);
    }
    const corrupt = await postForm(
      s,
      form({ model: SECOND_MODEL, file: [fixtureBlob("truncated_wav.wav"), "a.wav"] }),
    );
    assertEquals(corrupt.body.error.code, "media_duration_unreadable");
    assertEquals(s.upstream.requests.length, 0);
    await assertNothingCharged(s, OPENING, { untouched: true });
  },
);

Deno.test("a file over 25 MB is refused before any charge", serverTest, async () => {
  await using s = await setupAudio();
  const big = new Uint8Array(25 * 1024 * 1024 + 1);
  big.set(mediaFixture(WAV).subarray(0, 44));
  const refused = await s.client.audio.transcriptions.create({
    model: SECOND_MODEL,
    file: await toFile(big, "long.wav"),
  }).then(() => undefined, (error) => error);
  assertEquals(refused?.status, 413);
  assertEquals(refused.error?.code, "file_too_large");
  assertEquals(s.upstream.requests.length, 0);
  await assertNothingCharged(s, OPENING, { untouched: true });
});

Deno.test("an upstream failure gives the hold back", serverTest, async () => {
  await using s = await setupAudio();
  s.upstream.faults.push({ kind: "status", status: 500 }, { kind: "status", status: 500 });
  s.upstream.faults.push({ kind: "status", status: 500 });
  const failed = await s.client.audio.transcriptions.create({
    model: TOKEN_MODEL,
    file: await wavFile(),
  }).then(() => undefined, (error) => error);
  assertOk(failed?.status >= 500, String(failed?.status));
  await assertNothingCharged(s, OPENING);
});

Deno.test("the channel test transcribes a short WAV and bills nothing", serverTest, async () => {
  await using s = await setupAudio();
  const channel = (await s.gw.admin("GET", "/admin/channels")).body.data[0];
  const tested = await s.gw.admin("POST", `/admin/channels/${channel.id}/test`, {
    model: TOKEN_MODEL,
  });
  assertEquals(tested.status, 200, JSON.stringify(tested.body));
  assertEquals(tested.body.ok, true, JSON.stringify(tested.body));
  const sent = s.upstream.requests[0];
  assertEquals(sent.path, "/v1/audio/transcriptions");
  assertEquals(sent.fields.find(([name]) => name === "model")?.[1], "gpt-4o-transcribe");
  assertEquals(sent.file?.filename, "probe.wav");
  await assertNothingCharged(s, OPENING, { untouched: true });
});

/** A 1x1 PNG. */
const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

Deno.test(
  "an unknown field is not sent and is named; a text answer of a per-token model is estimated",
  serverTest,
  async () => {
    await using s = await setupAudio();
    const form = new FormData();
    form.append("model", TOKEN_MODEL);
    form.append("response_format", "text");
    form.append("speaker", "alice");
    form.append("file", fixtureBlob(WAV), "a.wav");
    const response = await fetch(`${s.gw.url}/v1/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}` },
      body: form,
    });
    assertEquals(response.status, 200);
    assertEquals(response.headers.get("x-gateway-ignored-fields"), "speaker");
    assertEquals(await response.text(), `${simulatedTranscript("transcriptions", wavBytes())}\n`);
    assertEquals(s.upstream.requests[0].fields.map(([name]) => name), ["model", "response_format"]);
    const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.usage_source, "estimate");
    assertEquals(record.ignored_fields, ["speaker"]);
    // 2.5 s × 10 tokens in; the transcript's characters / 4 out.
    assertEquals(record.input_tokens, 25);
    await assertWalletMatches(s, [record.receipt]);
  },
);
