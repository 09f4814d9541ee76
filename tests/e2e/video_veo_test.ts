/**
 * `veo` channels (Veo on the Gemini API): `:predictLongRunning`, the operation polled until
 * done, the video's URI fetched with the channel's key and hosted by the gateway, billed per
 * second once; failures and filtered videos refunded once; what Veo cannot take refused at
 * submission with nothing charged; a URI on another host is never sent the key.
 */

import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { solidPng } from "../helpers/png_fixtures.ts";
import { mediaFixtures } from "../helpers/media_tools.ts";
import { PER_SECOND } from "../helpers/video_setup.ts";
import { hostedBytes, moves, OPENING, setupVeo } from "../helpers/hosted_video_setup.ts";

async function submitted(response: Response): Promise<string> {
  const body = await response.json();
  assertEquals(response.status, 200, JSON.stringify(body));
  return body.id;
}

Deno.test(
  "veo: the finished video is fetched with the key and hosted by the gateway, billed once",
  serverTest,
  async () => {
    await using s = await setupVeo();
    const id = await submitted(
      await s.submit({ model: "vid-hosted", prompt: "a heron", duration: "6", ratio: "9:16" }),
    );
    const task = await s.waitForTask(id);
    assertEquals(task.status, "SUCCESS", task.fail_reason ?? "");
    const operation = [...s.veo.operations.values()][0];
    assertEquals(operation.model, "veo-3.0-generate-001");
    assertEquals(operation.body, {
      instances: [{ prompt: "a heron" }],
      parameters: { durationSeconds: 6, aspectRatio: "9:16" },
    });
    const url = task.result_url!;
    assertOk(url.startsWith(`${s.gw.url}/media/med_`) && url.endsWith(".mp4"), url);
    assertOk(!JSON.stringify(task).includes("/v1beta/files/"), "the upstream's URI is never shown");
    assertEquals(await hostedBytes(url), operation.bytes);
    assertEquals(s.veo.downloads, 1);
    const bare = await fetch(`${s.veo.baseUrl}/files/${operation.fileId}:download?alt=media`);
    await bare.body?.cancel();
    assertEquals(bare.status, 403, "the simulator refuses a download without the key");
    assertEquals(await moves(s), [["hold", -6 * PER_SECOND], ["settle", 0]]);
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), OPENING - 6 * PER_SECOND);
  },
);

Deno.test("veo: a reference image goes in the instance as base64", serverTest, async () => {
  await using s = await setupVeo();
  const png = solidPng(8, 8, [200, 100, 50, 255]);
  const id = await submitted(
    await s.submit({ model: "vid-hosted", prompt: "animate", duration: "8" }, [
      { field: "image_1", bytes: png, type: "image/png" },
    ]),
  );
  assertEquals((await s.waitForTask(id)).status, "SUCCESS");
  const { body } = [...s.veo.operations.values()][0];
  assertEquals(body.instances[0].image, {
    bytesBase64Encoded: png.toBase64(),
    mimeType: "image/png",
  });
  assertEquals(body.parameters, { durationSeconds: 8 });
});

for (const outcome of ["failed", "filtered"] as const) {
  Deno.test(
    `veo: an operation that ends ${outcome} is FAILURE, refunded once`,
    serverTest,
    async () => {
      await using s = await setupVeo({ upstream: { plan: () => ({ outcome }) } });
      const id = await submitted(
        await s.submit({ model: "vid-hosted", prompt: "no", duration: "4" }),
      );
      const task = await s.waitForTask(id);
      assertEquals(task.status, "FAILURE");
      assertOk(
        task.fail_reason?.includes(outcome === "failed" ? "could not be processed" : "filtered"),
        task.fail_reason!,
      );
      assertEquals(s.veo.downloads, 0);
      assertEquals(await moves(s), [["hold", -4 * PER_SECOND], ["release", 4 * PER_SECOND]]);
      await assertNothingCharged(s, OPENING);
    },
  );
}

Deno.test(
  "veo: what Veo cannot take is a 400 naming the field, nothing charged",
  serverTest,
  async () => {
    await using s = await setupVeo();
    const fixtures = mediaFixtures();
    const png = solidPng(8, 8, [1, 2, 3, 255]);
    const cases: Array<[Record<string, string>, Parameters<typeof s.submit>[1], string]> = [
      [{ duration: "5" }, [], "duration"],
      [{ duration: "4", ratio: "1:1" }, [], "ratio"],
      [
        { duration: "4" },
        [{ field: "audio", bytes: fixtures.wav_2500ms, type: "audio/wav" }],
        "audio",
      ],
      [{ duration: "4" }, [
        { field: "image_1", bytes: png, type: "image/png" },
        { field: "image_3", bytes: png, type: "image/png" },
      ], "image_3"],
    ];
    for (const [fields, files, param] of cases) {
      const response = await s.submit({ model: "vid-hosted", prompt: "no", ...fields }, files);
      const body = await response.json();
      assertEquals(response.status, 400, JSON.stringify(body));
      assertEquals(body.error.param, param, JSON.stringify(body));
    }
    assertEquals(s.veo.creates, 0);
    await assertNothingCharged(s, OPENING, { untouched: true });
  },
);

Deno.test(
  "veo: a video URI on another host is never sent the key: FAILURE, refunded once",
  serverTest,
  async () => {
    await using s = await setupVeo({ upstream: { uriOrigin: "http://127.0.0.2:9" } });
    const id = await submitted(await s.submit({ model: "vid-hosted", prompt: "x", duration: "4" }));
    const task = await s.waitForTask(id);
    assertEquals(task.status, "FAILURE");
    assertOk(task.fail_reason?.includes("another host"), task.fail_reason!);
    assertEquals(await moves(s), [["hold", -4 * PER_SECOND], ["release", 4 * PER_SECOND]]);
    await assertNothingCharged(s, OPENING);
  },
);

Deno.test(
  "veo: a request without duration asks Veo for its own default, 8 s, billed as 8 s",
  serverTest,
  async () => {
    await using s = await setupVeo();
    const id = await submitted(await s.submit({ model: "vid-hosted", prompt: "no length" }));
    assertEquals((await s.waitForTask(id)).status, "SUCCESS");
    assertEquals([...s.veo.operations.values()][0].body.parameters, { durationSeconds: 8 });
    assertEquals(await moves(s), [["hold", -8 * PER_SECOND], ["settle", 0]]);
  },
);
