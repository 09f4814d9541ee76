import { assertEquals } from "../../helpers/assert.ts";
import { failureCost, secondsText, videoBill } from "../../../core/billing/video_price.ts";
import { largestReferenceBytes, videoRulesOf } from "../../../core/video/video_models.ts";
import { resolutionFor, resolutionOfModel } from "../../../core/jobs/video_job.ts";
import { videoFieldsSchema } from "../../../core/video/request_schema.ts";
import { pollDelay } from "../../../workers/video_task.ts";

Deno.test("videoBill: per second = (duration + reference seconds to the ms) × price, rounded up", () => {
  assertEquals(videoBill({ per_second: 100_000 }, { durationSeconds: 5, referenceSeconds: [] }), {
    amount: 500_000,
    billedMs: 5000,
    refundPercent: 100,
  });
  assertEquals(
    videoBill({ per_second: 100_000 }, { durationSeconds: 6, referenceSeconds: [3, 2.5] }).amount,
    1_150_000,
  );
  // ffprobe's 2.0875 s rounds to 2.088 s; the amount rounds up to a whole unit.
  assertEquals(
    videoBill({ per_second: 7 }, { durationSeconds: 4, referenceSeconds: [2.0875] }).billedMs,
    6088,
  );
  assertEquals(
    videoBill({ per_second: 7 }, { durationSeconds: 4, referenceSeconds: [2.0875] }).amount,
    Math.ceil(7 * 6.088),
  );
  assertEquals(
    videoBill({ per_second: 3 }, { durationSeconds: 4, referenceSeconds: [0.0004] }).billedMs,
    4000,
  );
});

Deno.test("videoBill: per task is one price whatever the seconds; refund policy kept", () => {
  assertEquals(
    videoBill({ per_task: 500_000 }, { durationSeconds: 15, referenceSeconds: [10, 10] }),
    {
      amount: 500_000,
      billedMs: null,
      refundPercent: 100,
    },
  );
  assertEquals(
    videoBill({ per_task: 9, failure_refund_percent: 0 }, {
      durationSeconds: 5,
      referenceSeconds: [],
    }).refundPercent,
    0,
  );
});

Deno.test("failureCost: what a failed task keeps under its refund percent", () => {
  assertEquals(failureCost(500_000, 100), 0);
  assertEquals(failureCost(500_000, 0), 500_000);
  assertEquals(failureCost(500_001, 50), 250_001);
  assertEquals(secondsText(7038), "7.038");
  assertEquals(secondsText(5000), "5");
});

Deno.test("video models: resolution from the name, else the channel's, else 720p", () => {
  assertEquals(resolutionOfModel("vid-2"), null);
  assertEquals(resolutionOfModel("vid-2-480p"), "480p");
  assertEquals(resolutionOfModel("vid-2-2k"), "2k");
  assertEquals(resolutionOfModel("vid-2-cheap"), null);
  assertEquals(resolutionFor("vid-2-4k", "480p"), "4k");
  assertEquals(resolutionFor("vid-2-cheap", "1080p"), "1080p");
  assertEquals(resolutionFor("vid-2"), "720p");
});

Deno.test("video models: ratios by the model's name and limits, never by its price", () => {
  const all = ["adaptive", "16:9", "4:3", "1:1", "3:4", "9:16", "21:9"];
  const vid2 = videoRulesOf({ id: "vid-2" });
  assertEquals(vid2.ratios, all);
  assertEquals(vid2.defaultRatio, "adaptive");
  assertEquals(vid2.probeReferences, true);
  const cheap = videoRulesOf({ id: "vid-2-cheap" });
  assertEquals(cheap.ratios.includes("adaptive"), false);
  assertEquals(cheap.defaultRatio, "16:9");
  assertEquals(cheap.probeReferences, false);
  // The catalog's limits take the place of the name's rules, field by field.
  const relaxed = videoRulesOf({ id: "vid-2-cheap", limits: { ratios: ["adaptive", "1:1"] } });
  assertEquals(relaxed.ratios, ["adaptive", "1:1"]);
  assertEquals(relaxed.defaultRatio, "adaptive");
  assertEquals(relaxed.probeReferences, false);
  const squares = videoRulesOf({ id: "vid-2", limits: { ratios: ["1:1", "9:16"] } });
  assertEquals(squares.defaultRatio, "1:1");
  const byDefault = videoRulesOf({ id: "vid-2-cheap", limits: { default_ratio: "adaptive" } });
  assertEquals(byDefault.defaultRatio, "adaptive");
  assertEquals(byDefault.ratios.includes("adaptive"), true);
});

Deno.test("video models: limits default to the upstream's and follow the catalog", () => {
  const MIB = 1024 * 1024;
  const vid2 = videoRulesOf({ id: "vid-2" });
  assertEquals(vid2.promptMaxChars, 5000);
  assertEquals(vid2.audioAlone, false);
  assertEquals(vid2.reference.image.maxBytes, 30 * MIB);
  assertEquals(vid2.reference.video, { maxBytes: 50 * MIB, minSeconds: 2, maxSeconds: 15 });
  assertEquals(vid2.reference.audio, { maxBytes: 15 * MIB, minSeconds: 0, maxSeconds: 15 });
  const wide = videoRulesOf({
    id: "vid-wide",
    limits: {
      prompt_max_chars: 8000,
      audio_alone: true,
      reference_video_seconds: { min: 1, max: 30 },
      reference_audio_max_seconds: 30,
      reference_max_bytes: { video: 80 * MIB },
    },
  });
  assertEquals(wide.promptMaxChars, 8000);
  assertEquals(wide.audioAlone, true);
  assertEquals(wide.reference.video, { maxBytes: 80 * MIB, minSeconds: 1, maxSeconds: 30 });
  assertEquals(wide.reference.audio.maxSeconds, 30);
  assertEquals(wide.reference.image.maxBytes, 30 * MIB);
  assertEquals(
    largestReferenceBytes([
      { id: "vid-2", kind: "video" },
      { id: "vid-wide", kind: "video", limits: { reference_max_bytes: { video: 80 * MIB } } },
      { id: "small", kind: "video", limits: { reference_max_bytes: { image: MIB } } },
    ]),
    { image: 30 * MIB, video: 80 * MIB, audio: 15 * MIB },
  );
});

Deno.test("video fields: duration parsing and the resolution refusal", () => {
  const parse = (fields: Record<string, string>) =>
    videoFieldsSchema.safeParse({ model: "vid-2", prompt: "p", ...fields });
  assertEquals(parse({}).data?.duration, 5);
  assertEquals(parse({ duration: "15" }).data?.duration, 15);
  for (const bad of ["3", "16", "5.0", "-5", "", "1e1"]) {
    assertEquals(parse({ duration: bad }).success, false, bad);
  }
  const resolution = parse({ resolution: "720p" });
  assertEquals(resolution.success, false);
  assertEquals(resolution.error?.issues[0].path, ["resolution"]);
});

Deno.test("pollDelay: starts at the minimum, grows 1.5×, stops at the maximum", () => {
  assertEquals([0, 1, 2, 3, 10].map((n) => pollDelay(n, { minMs: 2000, maxMs: 30_000 })), [
    2000,
    3000,
    4500,
    6750,
    30_000,
  ]);
  assertEquals(pollDelay(-1, { minMs: 2000, maxMs: 30_000 }), 2000);
});
