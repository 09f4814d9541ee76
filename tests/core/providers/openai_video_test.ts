import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { readSoraVideo, soraRefusal } from "../../../core/providers/openai_video.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";

const image = { field: "image_1", kind: "image" as const };

Deno.test("openai-video: the video object's states in neutral terms", () => {
  assertEquals(readSoraVideo('{"id":"video_1","status":"queued","progress":0}'), {
    state: "queued",
    progress: "0%",
  });
  assertEquals(readSoraVideo('{"id":"video_1","status":"in_progress","progress":42.4}'), {
    state: "running",
    progress: "42%",
  });
  assertEquals(readSoraVideo('{"id":"video_1","status":"completed","progress":100}'), {
    state: "succeeded",
    download: "video_1",
  });
  assertEquals(
    readSoraVideo(
      '{"id":"video_1","status":"failed","error":{"code":"moderation_blocked","message":"no"}}',
    ),
    { state: "failed", reason: "upstream: moderation_blocked: no" },
  );
  let thrown: unknown;
  try {
    readSoraVideo('{"status":"completed"}');
  } catch (error) {
    thrown = error;
  }
  assertOk(thrown instanceof UpstreamAttemptError, "an answer without an id is a failed attempt");
});

Deno.test("openai-video: refusals name the field Sora cannot take", () => {
  const ask = { duration: 8, ratio: "16:9", references: [image] };
  assertEquals(soraRefusal("sora-2", ask), undefined);
  assertEquals(soraRefusal("sora-2", { ...ask, ratio: "adaptive" }), undefined);
  assertEquals(soraRefusal("sora-2", { ...ask, duration: 6 })?.param, "duration");
  assertEquals(soraRefusal("sora-2", { ...ask, ratio: "1:1" })?.param, "ratio");
  assertEquals(
    soraRefusal("sora-2", { ...ask, references: [image, { field: "image_2", kind: "image" }] })
      ?.param,
    "image_2",
  );
  assertEquals(
    soraRefusal("sora-2", { ...ask, references: [{ field: "audio", kind: "audio" }] })?.param,
    "audio",
  );
});
