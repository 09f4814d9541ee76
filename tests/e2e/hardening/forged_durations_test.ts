/**
 * Reference files whose duration fields lie (tests/fixtures/media/forged_*, made by
 * make_fixtures.sh): a real 60 s video whose headers say 2 s is refused as 60 s long; a real 15 s
 * video whose movie header says 2 s is billed 15 s, and an MP3 whose Xing header undercounts its
 * frames is billed by its frames; WAVs that ffprobe would measure by a field the client wrote (a
 * cut data chunk, a forged byte rate) are refused. Nothing is charged for a refusal. Run with each
 * reader: in process (no ffprobe), and ffprobe where there is one.
 */

import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { findFfprobe } from "../../helpers/external_tools.ts";
import { serverTest } from "../../helpers/gateway.ts";
import { mediaFixture } from "../../helpers/media_tools.ts";
import { solidPng } from "../../helpers/png_fixtures.ts";
import { PER_SECOND, setupVideo } from "../../helpers/video_setup.ts";

const ffprobe = await findFfprobe();
const PNG = solidPng(8, 8, [1, 2, 3, 255]);
const BASE = { model: "vid-2", prompt: "a kite", duration: "5" };

/** Forged files the gateway must refuse, the field they go in, and what the refusal says. */
const REFUSED: Array<{ file: string; field: string; code: string; message: RegExp }> = [
  {
    file: "forged_mvhd_60s.mp4",
    field: "video",
    code: "invalid_request",
    message: /lasts 60\.000 s/,
  },
  {
    file: "forged_headers_60s.mp4",
    field: "video",
    code: "invalid_request",
    message: /lasts 60\.000 s/,
  },
  {
    file: "forged_audio_60s.mp4",
    field: "video",
    code: "invalid_request",
    message: /lasts 60\.000 s/,
  },
  {
    file: "truncated_wav.wav",
    field: "audio",
    code: "media_duration_unreadable",
    message: /truncated/,
  },
  {
    file: "forged_rate_wav_pipe.wav",
    field: "audio",
    code: "media_duration_unreadable",
    message: /byte rate/,
  },
];

/** Forged files within the limits, and the seconds billed with `duration` 5. */
const BILLED = [
  { file: "forged_mvhd_15s.mp4", field: "video", billed: 20 },
  { file: "forged_xing_mp3.mp3", field: "audio", billed: 6.75 },
];

async function forgedReferences(env: Record<string, string>, reader: string): Promise<void> {
  await using s = await setupVideo({ env });
  const opening = await s.gw.balance(s.keyId);
  for (const { file, field, code, message } of REFUSED) {
    const files = [{ field, bytes: mediaFixture(file), filename: file }];
    if (field === "audio") files.unshift({ field: "image_1", bytes: PNG, filename: "a.png" });
    const response = await s.submit(BASE, files);
    const body = await response.json();
    assertEquals(response.status, 400, `${reader}, ${file}: ${JSON.stringify(body)}`);
    assertEquals(body.error.code, code, `${reader}, ${file}`);
    assertEquals(body.error.param, field, `${reader}, ${file}`);
    assertOk(message.test(body.error.message), `${reader}, ${file}: ${body.error.message}`);
  }
  assertEquals(s.ark.creates, 0);
  await assertNothingCharged(s, opening, { untouched: true });

  // Forged files within the limits are billed by their samples: a real 15 s video whose movie
  // header says 2 s, and a 1.75 s MP3 whose Xing header counts 5 of its 67 frames (0.13 s).
  let spent = 0;
  for (const { file, field, billed } of BILLED) {
    const files = [{ field, bytes: mediaFixture(file), filename: file }];
    if (field === "audio") files.unshift({ field: "image_1", bytes: PNG, filename: "a.png" });
    const response = await s.submit(BASE, files);
    const body = await response.json();
    assertEquals(response.status, 200, `${reader}, ${file}: ${JSON.stringify(body)}`);
    assertEquals(response.headers.get("x-gateway-duration-reader"), reader);
    assertEquals(response.headers.get("x-gateway-billed-seconds"), String(billed), file);
    const cost = Math.ceil(billed * PER_SECOND);
    assertEquals(response.headers.get("x-gateway-cost-units"), String(cost), file);
    assertEquals((await s.waitForTask(body.id)).status, "SUCCESS");
    spent += cost;
  }
  assertEquals(await s.gw.assertLedgerInvariant(s.keyId), opening - spent);
}

Deno.test(
  "forged reference durations: refused or billed by their samples, read in process",
  serverTest,
  () => forgedReferences({ FFPROBE_PATH: "/nonexistent/ffprobe" }, "in-process"),
);

ffprobe.test(
  "forged reference durations: refused or billed by their samples, read with ffprobe",
  (path) => forgedReferences({ FFPROBE_PATH: path }, "ffprobe"),
  serverTest,
);

ffprobe.reportIgnored("tests/e2e/hardening/forged_durations_test.ts");
