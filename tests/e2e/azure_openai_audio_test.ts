/**
 * Audio on `azure-openai` channels end to end: transcriptions (per second on a whisper
 * deployment, per token and streamed on a gpt-4o-transcribe one), translations and speech, through
 * the real gateway to the Azure OpenAI simulator, driven by the official openai SDK as a client of
 * the gateway. Both URL shapes; the wallet against the receipts. Azure has no moderations.
 */

import OpenAI, { toFile } from "openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, startTestGateway } from "../helpers/gateway.ts";
import { startAzureOpenAIUpstream } from "../upstream/azure_openai.ts";
import { simulatedTranscript } from "../upstream/openai_audio.ts";
import { speechAnswerBytes } from "../upstream/openai_speech.ts";
import { mediaFixture } from "../helpers/media_tools.ts";
import { SECOND_PRICE, TOKEN_PRICE } from "../helpers/audio_setup.ts";
import { SPEECH_PRICE } from "../helpers/speech_setup.ts";
import { walletMatchesReceipts } from "../helpers/wallet_receipts.ts";

const START_BALANCE = 10_000_000;
const WAV = mediaFixture("wav_2500ms.wav") as Uint8Array<ArrayBuffer>;

async function setup(shape: "deployment" | "v1") {
  await using stack = new AsyncDisposableStack();
  const azure = stack.use(startAzureOpenAIUpstream({ apiKeys: ["azure-key-1"] }));
  const gw = stack.use(await startTestGateway());
  await gw.putModel("az-whisper", { kind: "audio", price: SECOND_PRICE });
  await gw.putModel("az-transcribe", { kind: "audio", price: TOKEN_PRICE });
  await gw.putModel("az-tts", { kind: "audio", price: SPEECH_PRICE });
  const { id: channelId } = await gw.addChannel({
    name: "azure-audio",
    type: "azure-openai",
    base_url: azure.endpoint,
    ...(shape === "v1" ? { url_shape: "v1" } : { api_version: "2025-04-01-preview" }),
    keys: ["azure-key-1"],
    models: ["az-whisper", "az-transcribe", "az-tts"],
    model_map: {
      "az-whisper": "whisper-prod",
      "az-transcribe": "transcribe-prod",
      "az-tts": "tts-prod",
    },
  });
  const { id, key } = await gw.createKey({ balance: START_BALANCE });
  const owned = stack.move();
  const close = () => owned.disposeAsync();
  return {
    azure,
    gw,
    channelId,
    keyId: id,
    startBalance: START_BALANCE,
    client: new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }),
    [Symbol.asyncDispose]: close,
  };
}

for (const shape of ["deployment", "v1"] as const) {
  Deno.test(
    `azure-openai audio (${shape} URLs): transcribe, translate and speak through deployments`,
    serverTest,
    async () => {
      await using s = await setup(shape);
      const file = () => toFile(WAV, "a.wav", { type: "audio/wav" });

      const whisper = await s.client.audio.transcriptions.create({
        model: "az-whisper",
        file: await file(),
      });
      assertEquals(whisper.text, simulatedTranscript("transcriptions", WAV.length));
      const translated = await s.client.audio.translations.create({
        model: "az-whisper",
        file: await file(),
      });
      assertEquals(translated.text, simulatedTranscript("translations", WAV.length));

      const stream = await s.client.audio.transcriptions.create({
        model: "az-transcribe",
        file: await file(),
        stream: true,
      });
      const types: string[] = [];
      let done = "";
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === "transcript.text.done") done = event.text;
      }
      assertEquals(types.at(-1), "transcript.text.done");
      assertEquals(done, simulatedTranscript("transcriptions", WAV.length));

      const input = "Hello from an Azure deployment.";
      const spoken = await s.client.audio.speech.create({
        model: "az-tts",
        input,
        voice: "alloy",
        response_format: "wav",
      });
      const bytes = new Uint8Array(await spoken.arrayBuffer());
      assertEquals(
        bytes,
        speechAnswerBytes({
          model: "gpt-4o-mini-tts",
          input,
          voice: "alloy",
          response_format: "wav",
        }),
      );

      // Each call went to its deployment, the Azure way, with the resource's api-key.
      const audioCalls = s.azure.requests.filter((request) => request.url.includes("/audio/"));
      assertEquals(audioCalls.length, 4);
      assertOk(audioCalls.every((request) => request.auth === "api-key"));
      const paths = audioCalls.map((request) => request.url.split("?")[0]);
      assertEquals(
        paths,
        shape === "v1"
          ? [
            "/openai/v1/audio/transcriptions",
            "/openai/v1/audio/translations",
            "/openai/v1/audio/transcriptions",
            "/openai/v1/audio/speech",
          ]
          : [
            "/openai/deployments/whisper-prod/audio/transcriptions",
            "/openai/deployments/whisper-prod/audio/translations",
            "/openai/deployments/transcribe-prod/audio/transcriptions",
            "/openai/deployments/tts-prod/audio/speech",
          ],
      );
      assertEquals(audioCalls.map((request) => request.deployment), [
        "whisper-prod",
        "whisper-prod",
        "transcribe-prod",
        "tts-prod",
      ]);

      const records = await walletMatchesReceipts(s);
      assertEquals(records.map((record) => record.receipt?.kind), [
        "audio",
        "audio",
        "audio",
        "audio",
      ]);
      // Per second for whisper, from the upstream's usage for gpt-4o-transcribe.
      assertEquals(records[2].usage_source, "upstream");
    },
  );
}

Deno.test(
  "azure-openai audio: a deployment Azure does not have is a 502 that says so, nothing charged",
  serverTest,
  async () => {
    await using s = await setup("deployment");
    await s.gw.putModel("az-missing", { kind: "audio", price: SECOND_PRICE });
    await s.gw.addChannel({
      name: "azure-missing",
      type: "azure-openai",
      base_url: s.azure.endpoint,
      api_version: "2025-04-01-preview",
      keys: ["azure-key-1"],
      models: ["az-missing"],
      model_map: { "az-missing": "no-such-deployment" },
    });
    const failure = await s.client.audio.transcriptions.create({
      model: "az-missing",
      file: await toFile(WAV, "a.wav", { type: "audio/wav" }),
    }).then(() => null, (error) => error);
    assertOk(failure instanceof OpenAI.APIError, String(failure));
    // The channel's fault, not the caller's: a bad gateway, with Azure's reason.
    assertEquals(failure.status, 502);
    assertOk(/deployment/i.test(failure.message), failure.message);
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "azure-openai audio: the channel's Test button transcribes and speaks, billing nothing",
  serverTest,
  async () => {
    await using s = await setup("deployment");
    for (const model of ["az-whisper", "az-tts"]) {
      const tested = await s.gw.admin("POST", `/admin/channels/${s.channelId}/test`, { model });
      assertEquals(tested.status, 200, JSON.stringify(tested.body));
      assertEquals([tested.body.ok, tested.body.model], [true, model], JSON.stringify(tested.body));
    }
    assertEquals(
      s.azure.requests.map((request) => request.url.split("?")[0]),
      [
        "/openai/deployments/whisper-prod/audio/transcriptions",
        "/openai/deployments/tts-prod/audio/speech",
      ],
    );
    assertEquals(await s.gw.balance(s.keyId), START_BALANCE);
  },
);
