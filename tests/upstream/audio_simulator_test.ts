/** The OpenAI Audio simulator is as strict as the real API about its form, and answers each format. */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { startOpenAIAudioUpstream } from "./openai_audio.ts";

const wav = () => new Blob([new Uint8Array(2_000)], { type: "audio/wav" });

function form(fields: Record<string, string>, file: [Blob, string] | null = [wav(), "a.wav"]) {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  if (file) data.append("file", file[0], file[1]);
  return data;
}

Deno.test("audio simulator: refusals as the real API gives them", serverTest, async () => {
  await using upstream = startOpenAIAudioUpstream();
  const post = async (body: FormData | string, key = "sk-upstream-test") => {
    const response = await fetch(`${upstream.baseUrl}/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body,
    });
    const json = await response.json();
    return { status: response.status, param: json.error?.param, message: json.error?.message };
  };
  assertEquals((await post(form({ model: "whisper-1" }), "wrong")).status, 401);
  assertEquals((await post("model=whisper-1")).status, 400);
  assertEquals((await post(form({ model: "whisper-1" }, null))).param, "file");
  assertEquals((await post(form({}))).param, "model");
  assertEquals((await post(form({ model: "nope" }))).status, 404);
  assertEquals((await post(form({ model: "whisper-1" }, [wav(), "a.txt"]))).param, "file");
  assertEquals(
    (await post(form({ model: "whisper-1", response_format: "xml" }))).param,
    "response_format",
  );
  assertEquals(
    (await post(form({ model: "gpt-4o-transcribe", response_format: "srt" }))).param,
    "response_format",
  );
  const granularities = form({ model: "whisper-1" });
  granularities.append("timestamp_granularities[]", "word");
  assertEquals((await post(granularities)).param, "timestamp_granularities");
});

Deno.test(
  "audio simulator: formats, usage of the gpt-4o models, their stream",
  serverTest,
  async () => {
    await using upstream = startOpenAIAudioUpstream();
    const post = (fields: Record<string, string>) =>
      fetch(`${upstream.baseUrl}/audio/transcriptions`, {
        method: "POST",
        headers: { authorization: "Bearer sk-upstream-test" },
        body: form(fields),
      });
    const whisper = await (await post({ model: "whisper-1" })).json();
    assertEquals(whisper, { text: "Transcript of 2000 bytes of audio" });
    const tokens = await (await post({ model: "gpt-4o-transcribe" })).json();
    assertEquals(tokens.usage.input_tokens, 2);
    const vtt = await post({ model: "whisper-1", response_format: "vtt" });
    assertEquals(vtt.headers.get("content-type"), "text/plain; charset=utf-8");
    assertOk((await vtt.text()).startsWith("WEBVTT"));
    const ignored = await post({ model: "whisper-1", stream: "true" });
    assertEquals(ignored.headers.get("content-type"), "application/json");
    await ignored.body?.cancel();
    const stream = await post({ model: "gpt-4o-transcribe", stream: "true" });
    assertEquals(stream.headers.get("content-type"), "text/event-stream");
    const body = await stream.text();
    assertOk(body.includes('"type":"transcript.text.delta"'));
    assertOk(body.includes('"type":"transcript.text.done"') && body.includes('"usage"'));
  },
);
