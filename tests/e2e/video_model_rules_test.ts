/**
 * `vid-2-cheap`'s rules (no `adaptive` ratio, 16:9 by default, reference durations not read) go
 * with the model's name or its catalog `limits`, never with its price type: a per-task price on
 * another model changes only the bill, and `vid-2-cheap` keeps its rules at a per-second price.
 */

import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { mediaFixtures } from "../helpers/media_tools.ts";
import {
  ARK_MODEL,
  PER_SECOND,
  PER_TASK,
  setupVideo,
  type VideoSetup,
} from "../helpers/video_setup.ts";

const fixtures = await mediaFixtures();

/** Submits, expects 200, waits for SUCCESS; returns the creation headers and the ratio sent. */
async function runs(s: VideoSetup, fields: Record<string, string>, files = []) {
  const response = await s.submit(fields, files);
  const body = await response.json();
  assertEquals(response.status, 200, JSON.stringify(body));
  assertEquals((await s.waitForTask(body.id)).status, "SUCCESS");
  const upstream = [...s.ark.tasks.values()].at(-1)!;
  return { headers: response.headers, ratio: upstream.body.ratio };
}

async function refusedRatio(s: VideoSetup, fields: Record<string, string>) {
  const response = await s.submit(fields);
  const error = (await response.json()).error;
  assertEquals(response.status, 400, JSON.stringify(error));
  assertEquals(error.param, "ratio");
  assertOk(/does not support ratio 'adaptive'/.test(error.message), error.message);
}

Deno.test(
  "video rules: vid-2 at a per-task price keeps vid-2's rules (adaptive, probing); billed per task",
  serverTest,
  async () => {
    await using s = await setupVideo();
    await s.gw.putModel("vid-2", { kind: "video", price: { per_task: PER_TASK } });
    const plain = await runs(s, { model: "vid-2", prompt: "fixed price, own rules" });
    assertEquals(plain.ratio, "adaptive");
    assertEquals(plain.headers.get("x-gateway-billing"), "per_task");
    assertEquals(plain.headers.get("x-gateway-cost-units"), String(PER_TASK));
    assertEquals(
      (await runs(s, { model: "vid-2", prompt: "p", ratio: "adaptive" })).ratio,
      "adaptive",
    );
    // Its reference durations are still read and checked.
    const balance = await s.gw.balance(s.keyId);
    const long = await s.submit({ model: "vid-2", prompt: "too long a reference" }, [
      { field: "video", bytes: fixtures.mp4_20s },
    ]);
    const error = (await long.json()).error;
    assertEquals(long.status, 400);
    assertEquals(error.param, "video");
    assertOk(/2 to 15 seconds/.test(error.message), error.message);
    await assertNothingCharged(s, balance);
  },
);

Deno.test(
  "video rules: vid-2-cheap at a per-second price keeps its rules; its references are read to bill them",
  serverTest,
  async () => {
    await using s = await setupVideo({ cheapPrice: { per_second: PER_SECOND } });
    await refusedRatio(s, { model: "vid-2-cheap", prompt: "p", ratio: "adaptive" });
    const plain = await runs(s, { model: "vid-2-cheap", prompt: "p", duration: "4" });
    assertEquals(plain.ratio, "16:9");
    assertEquals(plain.headers.get("x-gateway-billing"), "per_second");
    const withVideo = await s.submit({ model: "vid-2-cheap", prompt: "p", duration: "4" }, [
      { field: "video", bytes: fixtures.mp4_3s },
    ]);
    assertEquals(withVideo.status, 200);
    assertEquals(withVideo.headers.get("x-gateway-billed-seconds"), "7");
    await s.waitForTask((await withVideo.json()).id);
  },
);

Deno.test(
  "video rules: the fixed-price rules as catalog limits: another model takes them, vid-2-cheap drops them",
  serverTest,
  async () => {
    await using s = await setupVideo();
    await s.gw.putModel("vid-2-flat", {
      kind: "video",
      price: { per_task: PER_TASK },
      limits: { ratios: ["16:9", "9:16", "1:1"], probe_references: false },
    });
    await s.gw.addChannel({
      name: "ark-flat",
      type: "ark-video",
      base_url: s.ark.baseUrl,
      keys: ["ark-upstream-test"],
      models: ["vid-2-flat"],
      model_map: { "vid-2-flat": ARK_MODEL },
    });
    await refusedRatio(s, { model: "vid-2-flat", prompt: "p", ratio: "adaptive" });
    assertEquals((await runs(s, { model: "vid-2-flat", prompt: "p" })).ratio, "16:9");
    // Not probed: a 20 s reference is passed on as vid-2-cheap's would be.
    const long = await s.submit({ model: "vid-2-flat", prompt: "p" }, [
      { field: "video", bytes: fixtures.mp4_20s },
    ]);
    assertEquals(long.status, 200);
    await s.waitForTask((await long.json()).id);

    await s.gw.admin("PATCH", "/admin/models/vid-2-cheap", {
      limits: { ratios: ["adaptive", "16:9"] },
    });
    assertEquals((await runs(s, { model: "vid-2-cheap", prompt: "p" })).ratio, "adaptive");
  },
);
