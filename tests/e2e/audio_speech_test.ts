/**
 * Text to speech end to end with the openai SDK: `audio.speech.create` streamed to a file whose
 * duration the gateway's own reader (and ffprobe, where installed) reads; the wallet against the
 * receipts; bad input refused in OpenAI's envelope with nothing charged; upstream failures, a body
 * cut mid-way and a client that leaves, billed by the documented rule (docs/audio.md).
 */

import OpenAI from "openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { serverTest } from "../helpers/gateway.ts";
import { findFfprobe } from "../helpers/external_tools.ts";
import {
  CLASSIC_SPEECH_MODEL,
  setupSpeech,
  SPEECH_MODEL,
  SPEECH_PRICE,
} from "../helpers/speech_setup.ts";
import { simulatedSpeechSeconds, simulatedWavSeconds } from "../upstream/openai_speech.ts";
import { readDurationFromBytes } from "../../core/media/duration_reader.ts";
import { probeMedia } from "../../core/media/ffprobe.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const ffprobe = await findFfprobe();
const INPUT = "The quick brown fox jumps over the lazy dog, twice over, for the gateway.";

/** Streams `response`'s body to a new temp file chunk by chunk; returns the path and the chunks. */
async function streamToFile(response: Response, suffix: string) {
  const path = await Deno.makeTempFile({ suffix });
  const file = await Deno.open(path, { write: true, truncate: true });
  let chunks = 0;
  for await (const chunk of response.body!) {
    chunks++;
    await file.write(chunk);
  }
  file.close();
  return { path, chunks };
}

async function recordOf(s: { gw: { admin: (m: string, p: string) => Promise<Json> } }, id: string) {
  const read = await s.gw.admin("GET", `/admin/requests/${id}`);
  assertEquals(read.status, 200, JSON.stringify(read.body));
  return read.body;
}

Deno.test(
  "speech: a WAV streamed to a file lasts what the input says; the wallet is debited by the receipt",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    const account = await s.gw.admin("POST", "/admin/accounts", {
      name: "voice",
      balance: 1_000_000,
    });
    assertEquals(account.status, 201, JSON.stringify(account.body));
    const created = await s.gw.admin("POST", "/admin/keys", {
      name: "tts",
      account_id: account.body.id,
    });
    const client = new OpenAI({
      apiKey: created.body.key,
      baseURL: `${s.gw.url}/v1`,
      maxRetries: 0,
    });
    const { data, response } = await client.audio.speech.create({
      model: SPEECH_MODEL,
      input: INPUT,
      voice: "alloy",
      response_format: "wav",
    }).withResponse();
    assertEquals(response.headers.get("content-type"), "audio/wav");
    const { path, chunks } = await streamToFile(data, ".wav");
    assertOk(chunks > 1, `the audio came in ${chunks} chunk(s)`);
    const bytes = await Deno.readFile(path);
    assertEquals(bytes, s.upstream.answers[0], "the client got the upstream's bytes unchanged");
    const probed = await readDurationFromBytes(bytes, { contentType: "audio/wav" });
    assertEquals(probed.seconds, simulatedWavSeconds(INPUT));
    await Deno.remove(path);

    await s.gw.settle();
    const id = response.headers.get("x-request-id")!;
    const record = await recordOf(s, id);
    const amount = INPUT.length * SPEECH_PRICE.per_character;
    assertEquals(record.interface, "openai-audio-speech");
    assertEquals(record.route, "/v1/audio/speech");
    assertEquals([record.status, record.outcome, record.cost], [200, "completed", amount]);
    assertEquals(record.receipt.kind, "audio");
    assertEquals(record.receipt.units, { input_characters: INPUT.length });
    assertEquals(
      record.receipt.formula,
      `${INPUT.length} characters × ${SPEECH_PRICE.per_character} = ${amount}`,
    );
    assertEquals([record.receipt.amount, record.receipt.charged], [amount, amount]);
    const verified = await s.gw.admin("GET", `/admin/accounts/${account.body.id}/ledger/verify`);
    assertOk(verified.body.ok, JSON.stringify(verified.body));
    assertEquals(verified.body.balance, 1_000_000 - amount);
    // The usage rollups and the metrics count it under its model and interface.
    const usage = (await s.gw.admin("GET", "/admin/usage?group_by=model")).body.data as Json[];
    const row = usage.find((entry) => entry.model === SPEECH_MODEL);
    assertEquals([row?.requests, row?.cost], [1, amount], JSON.stringify(usage));
    const metrics = await (await fetch(`${s.gw.url}/metrics`)).text();
    assertOk(
      /gateway_requests_total\{[^}]*interface="openai-audio-speech"[^}]*status="200"[^}]*\} 1/
        .test(metrics),
      metrics.split("\n").filter((line) => line.includes("audio")).join("\n"),
    );
    // The upstream got OpenAI's fields, the model mapped.
    assertEquals(s.upstream.requests[0].body, {
      model: "gpt-4o-mini-tts",
      input: INPUT,
      voice: "alloy",
      response_format: "wav",
    });
  },
);

Deno.test(
  "speech: MP3 (the default format) read by the gateway's reader; characters count as code points",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    const input = "Voilà 🎙️ — speech.";
    const { data, response } = await s.client.audio.speech.create({
      model: SPEECH_MODEL,
      input,
      voice: "coral",
      speed: 1.5,
    }).withResponse();
    assertEquals(response.headers.get("content-type"), "audio/mpeg");
    const { path } = await streamToFile(data, ".mp3");
    const bytes = await Deno.readFile(path);
    const probed = await readDurationFromBytes(bytes, { contentType: "audio/mpeg" });
    assertEquals(probed.seconds, 2.088);
    await Deno.remove(path);
    await s.gw.settle();
    const characters = [...input].length;
    assertOk(characters < input.length, "the input has characters outside the BMP");
    const record = await recordOf(s, response.headers.get("x-request-id")!);
    assertEquals(record.receipt.units.input_characters, characters);
    assertEquals(record.cost, characters * SPEECH_PRICE.per_character);
    assertEquals(await s.gw.balance(s.keyId), 10_000_000 - record.cost);
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);

ffprobe.test(
  "speech: ffprobe reads the streamed MP3 and WAV files' durations",
  async (ffprobePath) => {
    await using s = await setupSpeech();
    const expected: Array<[string, number]> = [
      ["mp3", 2.088],
      ["wav", simulatedWavSeconds(INPUT)],
    ];
    for (const [format, seconds] of expected) {
      const response = await s.client.audio.speech.create({
        model: SPEECH_MODEL,
        input: INPUT,
        voice: "nova",
        response_format: format as "mp3" | "wav",
      });
      const { path } = await streamToFile(response, `.${format}`);
      const probed = await probeMedia(ffprobePath, path);
      assertEquals(probed.seconds, seconds, `${format} read by ffprobe`);
      await Deno.remove(path);
    }
  },
  serverTest,
);

Deno.test(
  "speech: every format answers its own content type with the upstream's real bytes",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    const types = {
      mp3: "audio/mpeg",
      opus: "audio/opus",
      aac: "audio/aac",
      flac: "audio/flac",
      wav: "audio/wav",
      pcm: "audio/pcm",
    };
    const magic: Record<string, (bytes: Uint8Array) => boolean> = {
      mp3: (b) => b[0] === 0xff || String.fromCharCode(...b.slice(0, 3)) === "ID3",
      opus: (b) => String.fromCharCode(...b.slice(0, 4)) === "OggS",
      aac: (b) => b[0] === 0xff && (b[1] & 0xf0) === 0xf0,
      flac: (b) => String.fromCharCode(...b.slice(0, 4)) === "fLaC",
      wav: (b) => String.fromCharCode(...b.slice(0, 4)) === "RIFF",
      pcm: (b) => b.length === Math.round(simulatedSpeechSeconds("Hello there") * 24_000) * 2,
    };
    for (const [format, type] of Object.entries(types)) {
      const response = await s.client.audio.speech.create({
        model: SPEECH_MODEL,
        input: "Hello there",
        voice: "echo",
        response_format: format as keyof typeof types,
      });
      assertEquals(response.headers.get("content-type"), type, format);
      const bytes = new Uint8Array(await response.arrayBuffer());
      assertOk(magic[format](bytes), `${format}: ${bytes.slice(0, 8)}`);
    }
  },
);

Deno.test(
  "speech: the client has the first bytes while the upstream is still speaking (nothing buffered)",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    let release!: () => void;
    s.upstream.gate = new Promise((resolve) => release = resolve);
    const response = await s.client.audio.speech.create({
      model: SPEECH_MODEL,
      input: INPUT,
      voice: "alloy",
      response_format: "wav",
    });
    const reader = response.body!.getReader();
    const first = await reader.read();
    assertOk(!first.done && first.value.length > 0, "a first chunk arrived");
    assertEquals(String.fromCharCode(...first.value!.slice(0, 4)), "RIFF");
    release();
    let total = first.value!.length;
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      total += next.value.length;
    }
    assertEquals(total, s.upstream.answers[0].length);
  },
);

Deno.test(
  "speech: bad input is a 400 in OpenAI's envelope naming the field, and nothing is charged",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    const base = { model: SPEECH_MODEL, input: "Hello", voice: "alloy" };
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["unknown voice", { ...base, voice: "robot" }, "voice"],
      ["no voice", { model: SPEECH_MODEL, input: "Hello" }, "voice"],
      ["empty input", { ...base, input: "" }, "input"],
      ["input over 4,096 characters", { ...base, input: "a".repeat(4097) }, "input"],
      ["speed 5", { ...base, speed: 5 }, "speed"],
      ["speed 0.1", { ...base, speed: 0.1 }, "speed"],
      ["unknown format", { ...base, response_format: "ogg" }, "response_format"],
      ["SSE stream format", { ...base, stream_format: "sse" }, "stream_format"],
      ["no model", { input: "Hello", voice: "alloy" }, "model"],
    ];
    for (const [name, body, param] of cases) {
      try {
        // deno-lint-ignore no-explicit-any
        await s.client.audio.speech.create(body as any);
        throw new Error(`${name}: accepted`);
      } catch (error) {
        assertOk(error instanceof OpenAI.BadRequestError, `${name}: ${error}`);
        const answer = (error as InstanceType<typeof OpenAI.BadRequestError>).error as Json;
        assertEquals(answer.param, param, name);
        assertEquals(answer.type, "invalid_request_error", name);
        assertOk(answer.message.includes(param), `${name}: ${answer.message}`);
      }
    }
    // 4,096 characters are allowed (each emoji one character, two UTF-16 units).
    const longest = await s.client.audio.speech.create(
      { ...base, input: "🎙".repeat(4096) } as Json,
    );
    await longest.arrayBuffer();
    assertEquals(s.upstream.requests.length, 1, "only the valid request reached the upstream");
    await s.gw.settle();
    const entries = await s.gw.ledger(s.keyId);
    assertEquals(
      entries.filter((entry) => entry.type !== "credit").map((entry) => -entry.amount)
        .reduce((a, b) => a + b, 0),
      4096 * SPEECH_PRICE.per_character,
      "only the valid request was charged",
    );
  },
);

Deno.test(
  "speech: instructions reach models that take them and are named as ignored for tts-1",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    const ask = { input: "Hello", voice: "sage" as const, instructions: "Speak softly." };
    const taken = await s.client.audio.speech.create({ ...ask, model: SPEECH_MODEL })
      .withResponse();
    await taken.data.arrayBuffer();
    assertEquals(taken.response.headers.get("x-gateway-ignored-fields"), null);
    assertEquals(s.upstream.requests[0].body.instructions, "Speak softly.");
    const dropped = await s.client.audio.speech.create({ ...ask, model: CLASSIC_SPEECH_MODEL })
      .withResponse();
    await dropped.data.arrayBuffer();
    assertEquals(dropped.response.headers.get("x-gateway-ignored-fields"), "instructions");
    assertEquals(s.upstream.requests[1].body.model, "tts-1");
    assertEquals("instructions" in s.upstream.requests[1].body, false);
    // A field no speech request takes is named and not sent.
    const extra = await fetch(`${s.gw.url}/v1/audio/speech`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: SPEECH_MODEL, input: "Hello", voice: "sage", user: "u-1" }),
    });
    await extra.arrayBuffer();
    assertEquals(extra.headers.get("x-gateway-ignored-fields"), "user");
    assertEquals("user" in s.upstream.requests[2].body, false);
  },
);

Deno.test(
  "speech: an upstream 500 or 429 reaches the client as an error and costs nothing",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    const opening = await s.gw.balance(s.keyId);
    // The gateway answers an upstream's 5xx as 502 (docs/errors.md); a 429 stays a 429.
    for (const [status, answered] of [[500, 502], [429, 429]]) {
      s.upstream.faults.push({ kind: "status", status, message: `simulated ${status}` });
      try {
        await s.client.audio.speech.create({ model: SPEECH_MODEL, input: "Hi", voice: "alloy" });
        throw new Error(`${status}: accepted`);
      } catch (error) {
        assertOk(error instanceof OpenAI.APIError, String(error));
        assertEquals((error as InstanceType<typeof OpenAI.APIError>).status, answered);
      }
    }
    await s.gw.settle();
    await assertNothingCharged(s, opening);
  },
);

Deno.test(
  "speech: a body the upstream cuts mid-way is cut for the client too, and costs nothing",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    const opening = await s.gw.balance(s.keyId);
    s.upstream.faults.push({ kind: "cut", afterBytes: 10_000 });
    const { data, response } = await s.client.audio.speech.create({
      model: SPEECH_MODEL,
      input: INPUT,
      voice: "alloy",
      response_format: "wav",
    }).withResponse();
    let received = 0;
    let failed = false;
    try {
      for await (const chunk of data.body!) received += chunk.length;
    } catch {
      failed = true;
    }
    assertOk(failed, `the client's read failed (after ${received} bytes)`);
    assertOk(received > 0 && received <= 10_000, `received ${received}`);
    await s.gw.settle();
    const record = await recordOf(s, response.headers.get("x-request-id")!);
    assertEquals(
      [record.outcome, record.error_code, record.cost, record.receipt ?? null],
      ["upstream_error", "upstream_stream_interrupted", 0, null],
    );
    await assertNothingCharged(s, opening);
  },
);

Deno.test(
  "speech: a client that leaves after the first bytes pays the full price",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    let release!: () => void;
    s.upstream.gate = new Promise((resolve) => release = resolve);
    const leave = new AbortController();
    const response = await fetch(`${s.gw.url}/v1/audio/speech`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: SPEECH_MODEL, input: INPUT, voice: "alloy" }),
      signal: leave.signal,
    });
    const reader = response.body!.getReader();
    assertOk(!(await reader.read()).done);
    leave.abort();
    await reader.cancel().catch(() => {});
    release();
    const id = response.headers.get("x-request-id")!;
    let record: Json;
    for (let i = 0; i < 200; i++) {
      await s.gw.settle();
      const read = await s.gw.admin("GET", `/admin/requests/${id}`);
      if (read.status === 200) {
        record = read.body;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const amount = INPUT.length * SPEECH_PRICE.per_character;
    assertEquals([record.outcome, record.cost], ["client_disconnect", amount]);
    assertEquals(await s.gw.balance(s.keyId), 10_000_000 - amount);
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);

Deno.test(
  "speech: a client that leaves before the first byte pays nothing",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    const opening = await s.gw.balance(s.keyId);
    let release!: () => void;
    s.upstream.headGate = new Promise((resolve) => release = resolve);
    const leave = new AbortController();
    const asked = fetch(`${s.gw.url}/v1/audio/speech`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: SPEECH_MODEL, input: INPUT, voice: "alloy" }),
      signal: leave.signal,
    }).catch((error) => error);
    while (s.upstream.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    leave.abort();
    assertOk((await asked) instanceof Error, "the client's fetch was aborted");
    release();
    let records: Json[] = [];
    while (records.length === 0) {
      await s.gw.settle();
      records = (await s.gw.admin("GET", "/admin/requests?limit=10")).body.data;
      if (records.length === 0) await new Promise((r) => setTimeout(r, 10));
    }
    assertEquals([records[0].interface, records[0].cost, records[0].receipt ?? null], [
      "openai-audio-speech",
      0,
      null,
    ]);
    await assertNothingCharged(s, opening);
  },
);

Deno.test(
  "speech: the channel Test button speaks two characters and bills nothing",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    const opening = await s.gw.balance(s.keyId);
    const tested = await s.gw.admin("POST", `/admin/channels/${s.channelId}/test`, {
      model: SPEECH_MODEL,
    });
    assertEquals(tested.status, 200, JSON.stringify(tested.body));
    assertOk(tested.body.ok, JSON.stringify(tested.body));
    assertOk(tested.body.call.includes("speech"), tested.body.call);
    assertEquals(s.upstream.requests[0].body.input, "Hi");
    s.upstream.faults.push({ kind: "status", status: 401, message: "Incorrect API key" });
    const refused = await s.gw.admin("POST", `/admin/channels/${s.channelId}/test`, {
      model: SPEECH_MODEL,
    });
    assertEquals([refused.body.ok, refused.body.status], [false, 401]);
    await assertNothingCharged(s, opening, { untouched: true });
  },
);

Deno.test(
  "speech: a speech model on chat completions, or a chat model on speech, is a 400 naming the route",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    await s.gw.putModel("chat-test", { kind: "text", price: { input: 1, output: 1 } });
    try {
      await s.client.chat.completions.create({
        model: SPEECH_MODEL,
        messages: [{ role: "user", content: "hi" }],
      });
      throw new Error("accepted");
    } catch (error) {
      assertOk(error instanceof OpenAI.BadRequestError, String(error));
      assertOk(String((error as Error).message).includes("/v1/audio"), String(error));
    }
    try {
      await s.client.audio.speech.create({ model: "chat-test", input: "Hi", voice: "alloy" });
      throw new Error("accepted");
    } catch (error) {
      assertOk(error instanceof OpenAI.BadRequestError, String(error));
    }
    assertEquals(s.upstream.requests.length, 0);
  },
);

Deno.test(
  "speech: /openapi.json has the route, its request schema and its audio answer",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    const document: Json = await (await fetch(`${s.gw.url}/openapi.json`)).json();
    const operation = document.paths["/v1/audio/speech"].post;
    assertOk(operation.responses["200"].content["audio/*"], JSON.stringify(operation.responses));
    const schema = document.components.schemas.SpeechRequest;
    assertEquals(schema.required.toSorted(), ["input", "model", "voice"]);
    assertEquals(schema.properties.speed.maximum, 4);
  },
);

ffprobe.reportIgnored("tests/e2e/audio_speech_test.ts");
