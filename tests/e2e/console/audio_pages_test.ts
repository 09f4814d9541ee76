/**
 * The console with audio models: the Models page lists the kind `audio` with its price units,
 * the calculator prices each unit as billing does, and the Requests pages show a transcription
 * under its interface `openai-audio` with its receipt.
 */

import { toFile } from "openai";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { SECOND_MODEL, setupAudio, TOKEN_MODEL } from "../../helpers/audio_setup.ts";
import { mediaFixture } from "../../helpers/media_tools.ts";

Deno.test(
  "console: audio models, their price units, the calculator and the requests pages",
  serverTest,
  async () => {
    await using s = await setupAudio();
    await s.gw.putModel("tts-char", { kind: "audio", price: { per_character: 15 } });
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const models = await (await client.get("/console/models")).text();
    assertOk(models.includes(`<code>${SECOND_MODEL}</code>`), "lists the per-second model");
    assertOk(models.includes("$0.006000 per second of input audio"), "its price unit");
    assertOk(models.includes("input $2.500000, output $10.000000 per million tokens"), "per token");
    assertOk(models.includes("$0.000015 per character"), "per character");
    assertOk(models.includes("<td>audio</td>") || models.includes(">audio<"), "the kind");

    const seconds = await (await client.get(`/console/models?model=${SECOND_MODEL}&seconds=60`))
      .text();
    assertOk(seconds.includes("ceil(6000 × 60000 ms input audio / 1000) = 360000"), "per second");
    const tokens = await (await client.get(
      `/console/models?model=${TOKEN_MODEL}&input_tokens=1000&output_tokens=100`,
    )).text();
    assertOk(tokens.includes("= 3500"), "per token");

    const { response } = await s.client.audio.transcriptions.create({
      model: SECOND_MODEL,
      file: await toFile(mediaFixture("wav_2500ms.wav"), "a.wav"),
    }).withResponse();
    const id = response.headers.get("x-request-id")!;
    await s.gw.settle();
    const list = await (await client.get("/console/requests?interface=openai-audio")).text();
    assertOk(list.includes(id), "listed under openai-audio");
    const other = await (await client.get("/console/requests?interface=anthropic")).text();
    assertOk(!other.includes(id), "not under another interface");
    const detail = await client.get(`/console/requests/${id}`);
    assertEquals(detail.status, 200);
    const html = await detail.text();
    assertOk(html.includes("ceil(6000 × 2500 ms input audio / 1000) = 15000"), "the receipt");
  },
);
