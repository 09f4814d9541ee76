/**
 * A reference whose duration cannot be read is a 400 `media_duration_unreadable` that names the
 * field and the kind of problem in the gateway's words, with what to send instead: never the
 * upload's temp path (`…/gateway-upload-…/video`), nor ffprobe's or mp4box's own output (those are
 * for the server log). Nothing is held, stored or sent. Run with each reader: in process (no
 * ffprobe), and ffprobe where there is one.
 */

import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { findFfprobe } from "../../helpers/external_tools.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { spawnGateway } from "../../helpers/gateway_process.ts";
import { tempDir } from "../../helpers/temp_dir.ts";
import { startArkVideoUpstream } from "../../upstream/ark_video.ts";
import { mediaFixture } from "../../helpers/media_tools.ts";
import { solidPng } from "../../helpers/png_fixtures.ts";
import {
  adminOf,
  provisionVideo,
  setupVideo,
  videoClient,
  type VideoFile,
} from "../../helpers/video_setup.ts";

const ffprobe = await findFfprobe();
const PNG = solidPng(8, 8, [1, 2, 3, 255]);
const BASE = { model: "vid-2", prompt: "a kite", duration: "5" };

function box(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + body.length);
  new DataView(out.buffer).setUint32(0, out.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(body, 8);
  return out;
}

const FTYP = box("ftyp", new TextEncoder().encode("isom\0\0\x02\0isommp41"));

/** An MP4 whose moov holds an mvhd that claims more bytes than the moov has (mp4box objects). */
function damagedMoov(): Uint8Array {
  const mvhd = new Uint8Array(24);
  new DataView(mvhd.buffer).setUint32(0, 200);
  mvhd.set(new TextEncoder().encode("mvhd"), 4);
  return new Uint8Array([...FTYP, ...box("moov", mvhd)]);
}

/** An MP4 with a well-formed, empty movie: no duration anywhere. */
function emptyMovie(): Uint8Array {
  return new Uint8Array([...FTYP, ...box("moov", box("mvhd", new Uint8Array(100)))]);
}

type Reader = "ffprobe" | "in-process";

interface Unreadable {
  name: string;
  field: "video" | "audio";
  bytes: Uint8Array;
  /** What the message says the problem is. */
  says: RegExp;
  /** The readers that refuse it (ffprobe reads some files the in-process reader does not). */
  readers: Reader[];
}

const NOT_READABLE = /it is not a readable (video|audio) file .*Send a complete, undamaged/;

const UNREADABLE: Unreadable[] = [
  {
    name: "an MP4 header then noise",
    field: "video",
    bytes: mediaFixture("corrupt_mp4.mp4"),
    says: NOT_READABLE,
    readers: ["ffprobe", "in-process"],
  },
  {
    name: "an MP4 cut inside its mdat (no index)",
    field: "video",
    bytes: mediaFixture("truncated_mp4_mdat.mp4"),
    says: NOT_READABLE,
    readers: ["ffprobe", "in-process"],
  },
  {
    name: "an MP4 whose index is damaged",
    field: "video",
    bytes: damagedMoov(),
    says:
      /it is not a readable video file \(the MP4 or MOV file's moov box \(its index\) is damaged\)/,
    readers: ["in-process"],
  },
  {
    name: "an MP4 whose movie lasts nothing",
    field: "video",
    bytes: emptyMovie(),
    says: /it has no duration .*Send a video that plays for 2 to 15 seconds/,
    readers: ["ffprobe", "in-process"],
  },
  {
    name: "a WAV that is not PCM",
    field: "audio",
    bytes: mediaFixture("wav_adpcm.wav"),
    says: /its format is not supported .*not PCM.*Send it as WAV or MP3/,
    readers: ["in-process"],
  },
];

/** What a client message must never carry. */
const LEAKS: Array<[string, RegExp]> = [
  ["a server path", /(^|[\s('"`:=])\/[\w.-]+\//],
  ["the upload's temp directory", /gateway-upload|gateway-probe|\/tmp/i],
  ["ffprobe's output", /ffprobe|Invalid data found|processing input|moov atom not found/i],
  ["mp4box's output", /mp4box|BoxParser|container size/i],
];

async function unreadableReferences(env: Record<string, string>, reader: Reader): Promise<void> {
  await using s = await setupVideo({ env });
  const opening = await s.gw.balance(s.keyId);
  for (const { name, field, bytes, says, readers } of UNREADABLE) {
    if (!readers.includes(reader)) continue;
    const files: VideoFile[] = [{ field, bytes, filename: `${field}.bin` }];
    if (field === "audio") files.unshift({ field: "image_1", bytes: PNG, filename: "a.png" });
    const response = await s.submit(BASE, files);
    const text = await response.text();
    assertEquals(response.status, 400, `${reader}, ${name}: ${text}`);
    const { error } = JSON.parse(text);
    assertEquals([error.code, error.param], ["media_duration_unreadable", field], name);
    assertOk(error.message.startsWith(`The duration of ${field} could not be read: `), text);
    assertOk(says.test(error.message), `${reader}, ${name}: ${error.message}`);
    for (const [what, pattern] of LEAKS) {
      assertOk(!pattern.test(text), `${reader}, ${name}: the answer shows ${what}: ${text}`);
    }
  }
  assertEquals(s.ark.creates, 0);
  await assertNothingCharged(s, opening, { untouched: true });
}

Deno.test(
  "unreadable references: a 400 in the gateway's words, no path or tool output, read in process",
  serverTest,
  () => unreadableReferences({ FFPROBE_PATH: "/nonexistent/ffprobe" }, "in-process"),
);

ffprobe.test(
  "unreadable references: a 400 in the gateway's words, no path or tool output, read with ffprobe",
  (path) => unreadableReferences({ FFPROBE_PATH: path }, "ffprobe"),
  serverTest,
);

ffprobe.test(
  "unreadable references: ffprobe's words and the upload's temp path go to the server log only",
  async (path) => {
    await using ark = startArkVideoUpstream();
    await using dir = await tempDir();
    await using gateway = await spawnGateway({
      GATEWAY_KV: `${dir.path}/g.kv`,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_LOG_REQUESTS: "0",
      FFPROBE_PATH: path,
    });
    const { key } = await provisionVideo(adminOf(gateway.url, ADMIN_TOKEN), ark.baseUrl);
    const response = await videoClient(gateway.url, key).submit(BASE, [
      { field: "video", bytes: mediaFixture("corrupt_mp4.mp4"), filename: "clip.mp4" },
    ]);
    const text = await response.text();
    assertEquals(response.status, 400, text);
    const requestId = JSON.parse(text).error.request_id ?? response.headers.get("x-request-id");
    const logged = gateway.lines.filter((line) => line.startsWith("{")).map((line) =>
      JSON.parse(line)
    )
      .find((line) => line.msg === "reference duration unreadable");
    assertOk(logged, gateway.lines.join("\n"));
    assertEquals([logged.request_id, logged.field], [requestId, "video"]);
    assertOk(/^ffprobe exited with \d+: .*gateway-upload-/s.test(logged.detail), logged.detail);
    assertOk(!text.includes("gateway-upload") && !text.includes("ffprobe"), text);
  },
  serverTest,
);

ffprobe.reportIgnored("tests/e2e/hardening/unreadable_reference_messages_test.ts");
