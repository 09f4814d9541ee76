/** Direct checks that the speech simulator is as strict as OpenAI's API and answers real audio. */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { readDurationFromBytes } from "../../core/media/duration_reader.ts";
import { simulatedWavSeconds, startOpenAISpeechUpstream } from "./openai_speech.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

function ask(baseUrl: string, body: unknown, key = "sk-upstream-test") {
  return fetch(`${baseUrl}/audio/speech`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

Deno.test("speech simulator: refuses what OpenAI refuses, naming the field", opts, async () => {
  await using upstream = startOpenAISpeechUpstream();
  const base = { model: "gpt-4o-mini-tts", input: "Hello", voice: "alloy" };
  const cases: Array<[unknown, number, string | null]> = [
    [{ ...base, voice: "robot" }, 400, "voice"],
    [{ ...base, input: "" }, 400, "input"],
    [{ ...base, input: "a".repeat(4097) }, 400, "input"],
    [{ ...base, speed: 5 }, 400, "speed"],
    [{ ...base, response_format: "ogg" }, 400, "response_format"],
    [{ ...base, model: "tts-1", instructions: "soft" }, 400, "instructions"],
    [{ ...base, model: "tts-1", stream_format: "sse" }, 400, "stream_format"],
    [{ ...base, user: "x" }, 400, null],
  ];
  for (const [body, status, param] of cases) {
    const answer = await ask(upstream.baseUrl, body);
    assertEquals(answer.status, status, JSON.stringify(body));
    assertEquals((await answer.json()).error.param, param, JSON.stringify(body));
  }
  const refused = await ask(upstream.baseUrl, base, "sk-wrong");
  assertEquals(refused.status, 401);
  await refused.body?.cancel();
});

Deno.test(
  "speech simulator: a WAV in several chunks lasting what the input says",
  opts,
  async () => {
    await using upstream = startOpenAISpeechUpstream();
    const input = "Fifteen chars!!".repeat(3);
    const answer = await ask(upstream.baseUrl, {
      model: "gpt-4o-mini-tts",
      input,
      voice: "alloy",
      response_format: "wav",
      speed: 2,
    });
    assertEquals(answer.headers.get("content-type"), "audio/wav");
    let chunks = 0;
    const parts: Uint8Array<ArrayBuffer>[] = [];
    for await (const chunk of answer.body!) {
      chunks++;
      parts.push(new Uint8Array(chunk));
    }
    const bytes = new Uint8Array(await new Blob(parts).arrayBuffer());
    assertOk(chunks > 1, `${chunks} chunk(s)`);
    const probed = await readDurationFromBytes(bytes, { contentType: "audio/wav" });
    assertEquals(probed.seconds, simulatedWavSeconds(input, 2));
    assertEquals(probed.seconds, 1.5);
  },
);

Deno.test("speech simulator: a cut fault ends the body with an error", opts, async () => {
  await using upstream = startOpenAISpeechUpstream();
  upstream.faults.push({ kind: "cut", afterBytes: 6000 });
  const answer = await ask(upstream.baseUrl, {
    model: "gpt-4o-mini-tts",
    input: "A sentence long enough for several chunks of audio.",
    voice: "alloy",
    response_format: "pcm",
  });
  assertEquals(answer.status, 200);
  let received = 0;
  let failed = false;
  try {
    for await (const chunk of answer.body!) received += chunk.length;
  } catch {
    failed = true;
  }
  assertOk(failed, "the read failed");
  assertEquals(received, 6000);
});
