/**
 * The console with a speech model: the Models page shows its per-character price, the calculator
 * prices characters as billing does, and the Requests pages list the speech request under its
 * interface with its receipt.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { setupSpeech, SPEECH_MODEL } from "../../helpers/speech_setup.ts";

Deno.test(
  "console: a speech model's per-character price, its cost estimate, and its request with the receipt",
  serverTest,
  async () => {
    await using s = await setupSpeech();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const models = await (await client.get("/console/models")).text();
    assertOk(models.includes(`<code>${SPEECH_MODEL}</code>`), "lists the speech model");
    assertOk(models.includes("$0.000015 per character"), "its price per character");
    const estimate = await (await client.get(
      `/console/models?model=${SPEECH_MODEL}&characters=2000`,
    )).text();
    assertOk(estimate.includes("2000 characters × 15 = 30000"), "the calculator's formula");

    const audio = await s.client.audio.speech.create({
      model: SPEECH_MODEL,
      input: "Hello from the console test.",
      voice: "alloy",
    }).withResponse();
    await audio.data.arrayBuffer();
    const id = audio.response.headers.get("x-request-id")!;
    await s.gw.settle();
    const list = await client.get("/console/requests?interface=openai-audio-speech");
    assertEquals(list.status, 200);
    const html = await list.text();
    assertOk(html.includes(id), "the request is listed under its interface");
    const detail = await (await client.get(`/console/requests/${id}`)).text();
    assertOk(detail.includes("28 characters × 15 = 420"), "the receipt's formula");
  },
);
