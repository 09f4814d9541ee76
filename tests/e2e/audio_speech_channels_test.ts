/**
 * Speech across channels: a channel that fails before any audio is left for the next one (billed
 * once); an upstream gone silent mid-body is cut at the channel's stream_idle_ms and costs
 * nothing; a speech model asked on Gemini's generateContent is a 400 in Gemini's envelope.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { serverTest } from "../helpers/gateway.ts";
import { setupSpeech, SPEECH_MODEL, SPEECH_PRICE } from "../helpers/speech_setup.ts";
import { startOpenAISpeechUpstream } from "../upstream/openai_speech.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const INPUT = "Failover keeps the voice.";

Deno.test(
  "speech: a channel that answers 500 before any audio is left for the next; billed once",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    await using second = startOpenAISpeechUpstream();
    await s.gw.admin("PATCH", `/admin/channels/${s.channelId}`, { priority: 10 });
    await s.gw.addChannel({
      name: "speech-2",
      type: "openai",
      base_url: second.baseUrl,
      keys: ["sk-upstream-test"],
      models: [SPEECH_MODEL],
      model_map: { [SPEECH_MODEL]: "gpt-4o-mini-tts" },
      priority: 0,
    });
    s.upstream.faults.push({ kind: "status", status: 500 });
    const { data, response } = await s.client.audio.speech.create({
      model: SPEECH_MODEL,
      input: INPUT,
      voice: "alloy",
      response_format: "wav",
    }).withResponse();
    const bytes = new Uint8Array(await data.arrayBuffer());
    assertEquals(bytes, second.answers[0]);
    assertEquals([s.upstream.requests.length, second.requests.length], [1, 1]);
    await s.gw.settle();
    const record =
      (await s.gw.admin("GET", `/admin/requests/${response.headers.get("x-request-id")}`))
        .body;
    assertEquals(record.attempts, 2);
    assertEquals(record.cost, INPUT.length * SPEECH_PRICE.per_character);
    assertEquals(await s.gw.balance(s.keyId), 10_000_000 - record.cost);
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);

Deno.test(
  "speech: a 200 answer of JSON (a relay's wrapped error) is not relayed as audio; nothing charged",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    const opening = await s.gw.balance(s.keyId);
    s.upstream.faults.push({ kind: "json_200" });
    const answer = await fetch(`${s.gw.url}/v1/audio/speech`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: SPEECH_MODEL, input: INPUT, voice: "alloy" }),
    });
    assertEquals(answer.status, 502);
    const body: Json = await answer.json();
    assertOk(String(body.error.message).includes("not audio"), body.error.message);
    await s.gw.settle();
    await assertNothingCharged(s, opening);
  },
);

Deno.test(
  "speech: an upstream silent mid-body past stream_idle_ms is cut for the client and costs nothing",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    const patched = await s.gw.admin("PATCH", `/admin/channels/${s.channelId}`, {
      stream_idle_ms: 200,
    });
    assertEquals(patched.status, 200, JSON.stringify(patched.body));
    const opening = await s.gw.balance(s.keyId);
    let release!: () => void;
    s.upstream.gate = new Promise((resolve) => release = resolve);
    const { data, response } = await s.client.audio.speech.create({
      model: SPEECH_MODEL,
      input: INPUT,
      voice: "alloy",
      response_format: "wav",
    }).withResponse();
    let failed = false;
    try {
      for await (const _ of data.body!) { /* the first chunk, then silence */ }
    } catch {
      failed = true;
    }
    release();
    assertOk(failed, "the client's download was cut");
    await s.gw.settle();
    const record =
      (await s.gw.admin("GET", `/admin/requests/${response.headers.get("x-request-id")}`))
        .body;
    assertEquals([record.outcome, record.error_code, record.cost], [
      "upstream_idle_timeout",
      "upstream_timeout",
      0,
    ]);
    await assertNothingCharged(s, opening);
  },
);

Deno.test(
  "speech: a speech model on Gemini's generateContent is a 400 in Gemini's envelope",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    const answer = await fetch(`${s.gw.url}/v1beta/models/${SPEECH_MODEL}:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": s.key, "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ parts: [{ text: "Say hi" }] }] }),
    });
    assertEquals(answer.status, 400);
    const body: Json = await answer.json();
    assertEquals(body.error.status, "INVALID_ARGUMENT");
    assertOk(String(body.error.message).includes("/v1/audio"), body.error.message);
    assertEquals(s.upstream.requests.length, 0);
  },
);
