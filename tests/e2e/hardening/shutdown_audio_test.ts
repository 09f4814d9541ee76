/**
 * SIGTERM with audio still relaying at the shutdown deadline. A speech answer: the gateway cuts
 * the download (an error, not a short file), releases the hold, logs it as `gateway_shutdown`
 * with cost 0 and exits; the next boot on the same KV finds the wallet untouched. A transcription
 * stream: closed and billed by the estimate of the transcript that came, as a text stream is.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { type GatewayProcess, spawnGateway, terminated } from "../../helpers/gateway_process.ts";
import { tempDir } from "../../helpers/temp_dir.ts";
import { adminCall, eventually, makeKey } from "../../helpers/outage_setup.ts";
import { startOpenAISpeechUpstream } from "../../upstream/openai_speech.ts";
import { startOpenAIAudioUpstream } from "../../upstream/openai_audio.ts";
import { SPEECH_MODEL, SPEECH_PRICE } from "../../helpers/speech_setup.ts";
import { TOKEN_MODEL, TOKEN_PRICE } from "../../helpers/audio_setup.ts";
import { mediaFixture } from "../../helpers/media_tools.ts";

const OPENING = 1_000_000;

function gatewayEnv(dir: string): Record<string, string> {
  return {
    GATEWAY_KV: `${dir}/g.kv`,
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEWAY_LOG_REQUESTS: "0",
    GATEWAY_SHUTDOWN_MS: "2000",
  };
}

/** Stops `gateway` with SIGTERM: a clean exit that said it ended the open streams. */
async function stopGracefully(gateway: GatewayProcess): Promise<void> {
  assertEquals((await terminated(gateway)).code, 0);
  assertOk(
    gateway.lines.some((line) => line.includes("streams ended at the shutdown deadline")),
    gateway.lines.join("\n"),
  );
}

/** Kills what is left of `gateway` (a failed test's process). */
async function killed(gateway: GatewayProcess): Promise<void> {
  try {
    gateway.child.kill("SIGKILL");
  } catch {
    // exited
  }
  await gateway.child.status;
}

/** The first request `keyId` made, once it is logged. */
async function firstRequestOf(url: string, keyId: string) {
  let record: { outcome?: string; cost?: number; usage_source?: string } | undefined;
  await eventually("the request logged", async () => {
    record = (await adminCall(url, "GET", `/admin/requests?key=${keyId}`)).body.data[0];
    return record !== undefined;
  });
  return record!;
}

Deno.test(
  "SIGTERM: a speech answer relaying at the shutdown deadline is cut, released and logged",
  serverTest,
  async () => {
    await using upstream = startOpenAISpeechUpstream();
    // The audio after its first chunk waits until the test ends: it outlasts the deadline.
    let open!: () => void;
    upstream.gate = new Promise<void>((resolve) => open = resolve);
    await using dir = await tempDir();
    const env = gatewayEnv(dir.path);
    const first = await spawnGateway(env);
    let keyId = "";
    try {
      const model = await adminCall(first.url, "PUT", `/admin/models/${SPEECH_MODEL}`, {
        kind: "audio",
        price: SPEECH_PRICE,
      });
      assertEquals(model.status, 200, JSON.stringify(model.body));
      const channel = await adminCall(first.url, "POST", "/admin/channels", {
        name: "speech",
        type: "openai",
        base_url: upstream.baseUrl,
        keys: ["sk-upstream-test"],
        models: [SPEECH_MODEL],
        model_map: { [SPEECH_MODEL]: "gpt-4o-mini-tts" },
      });
      assertEquals(channel.status, 201, JSON.stringify(channel.body));
      const made = await makeKey(first.url, { balance: OPENING });
      keyId = made.id;
      const response = await fetch(`${first.url}/v1/audio/speech`, {
        method: "POST",
        headers: { authorization: `Bearer ${made.key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: SPEECH_MODEL,
          input: "A sentence long enough to be spoken for a few seconds, and then some more.",
          voice: "alloy",
          response_format: "wav",
        }),
      });
      assertEquals(response.status, 200);
      const reader = response.body!.getReader();
      const firstChunk = await reader.read();
      assertOk(!firstChunk.done && firstChunk.value.length > 0, "the first audio arrived");

      await stopGracefully(first);
      // The download is broken off, never ended as if whole.
      let broken = false;
      try {
        while (!(await reader.read()).done) {
          // what came before the cut
        }
      } catch {
        broken = true;
      }
      assertOk(broken, "the cut download ended as if whole");
    } finally {
      open();
      await killed(first);
    }

    await using second = await spawnGateway(env);
    const key = await adminCall(second.url, "GET", `/admin/keys/${keyId}`);
    assertEquals(key.body.balance, OPENING);
    const ledger = await adminCall(second.url, "GET", `/admin/ledger?key=${keyId}&order=asc`);
    const types = ledger.body.data.map((entry: { type: string }) => entry.type);
    assertEquals(types.filter((type: string) => type === "charge" || type === "settle"), []);
    const record = await firstRequestOf(second.url, keyId);
    assertEquals([record.outcome, record.cost], ["gateway_shutdown", 0]);
  },
);

Deno.test(
  "SIGTERM: a transcription stream open at the shutdown deadline is closed and billed for what came",
  serverTest,
  async () => {
    await using upstream = startOpenAIAudioUpstream();
    upstream.faults.push({ kind: "stall_stream" });
    await using dir = await tempDir();
    const env = gatewayEnv(dir.path);
    const first = await spawnGateway(env);
    let keyId = "";
    try {
      const model = await adminCall(first.url, "PUT", `/admin/models/${TOKEN_MODEL}`, {
        kind: "audio",
        price: TOKEN_PRICE,
      });
      assertEquals(model.status, 200, JSON.stringify(model.body));
      const channel = await adminCall(first.url, "POST", "/admin/channels", {
        name: "audio",
        type: "openai",
        base_url: upstream.baseUrl,
        keys: ["sk-upstream-test"],
        models: [TOKEN_MODEL],
        model_map: { [TOKEN_MODEL]: "gpt-4o-transcribe" },
      });
      assertEquals(channel.status, 201, JSON.stringify(channel.body));
      const made = await makeKey(first.url, { balance: OPENING });
      keyId = made.id;
      const form = new FormData();
      form.append("model", TOKEN_MODEL);
      form.append("stream", "true");
      const wav = mediaFixture("wav_2500ms.wav") as Uint8Array<ArrayBuffer>;
      form.append("file", new Blob([wav], { type: "audio/wav" }), "a.wav");
      const response = await fetch(`${first.url}/v1/audio/transcriptions`, {
        method: "POST",
        headers: { authorization: `Bearer ${made.key}` },
        body: form,
      });
      assertEquals(response.status, 200);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      const firstEvent = await reader.read();
      assertOk(firstEvent.value?.includes("transcript.text.delta"), firstEvent.value);

      await stopGracefully(first);
      let rest = "";
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        rest += read.value;
      }
      assertOk(!rest.includes("transcript.text.done"), rest);
    } finally {
      await killed(first);
    }

    await using second = await spawnGateway(env);
    const ledger = await adminCall(second.url, "GET", `/admin/ledger?key=${keyId}&order=asc`);
    const charges = ledger.body.data.filter((entry: { type: string }) => entry.type === "charge");
    assertEquals(charges.length, 1, JSON.stringify(ledger.body.data));
    assertOk(charges[0].cost > 0, JSON.stringify(charges[0]));
    const key = await adminCall(second.url, "GET", `/admin/keys/${keyId}`);
    assertEquals(key.body.balance, OPENING - charges[0].cost);
    const record = await firstRequestOf(second.url, keyId);
    assertEquals([record.cost, record.usage_source], [charges[0].cost, "estimate"]);
  },
);
