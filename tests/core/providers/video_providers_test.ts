import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  buildArkCreate,
  buildArkPoll,
  buildArkProbe,
  readArkProbe,
  readArkTask,
} from "../../../core/providers/ark_video.ts";
import {
  buildGatewayVideoCreate,
  buildGatewayVideoProbe,
  readGatewayVideoProbe,
  readGatewayVideoTask,
} from "../../../core/providers/gateway_video.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";
import type { VideoJob } from "../../../core/jobs/video_job.ts";
import { readCreatedTaskId } from "../../../core/providers/provider.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";

const channel = { base_url: "https://ark.example/api/v3", video_resolution: "1080p" } as Channel;
const target = { channel, apiKey: "sk", model: "seedance" };
const job: VideoJob = {
  model: "vid-2",
  prompt: "a cat",
  duration: 6,
  ratio: "16:9",
  references: [
    {
      field: "image_1",
      kind: "image",
      media_id: "med_a",
      content_type: "image/png",
      filename: "a.png",
      seconds: null,
    },
    {
      field: "video",
      kind: "video",
      media_id: "med_v",
      content_type: "video/mp4",
      filename: "v.mp4",
      seconds: 3,
    },
    {
      field: "audio",
      kind: "audio",
      media_id: "med_s",
      content_type: "audio/wav",
      filename: "s.wav",
      seconds: 2.5,
    },
  ],
};

Deno.test("ark create: content items with roles, parameters at the top level", () => {
  const { url, init } = buildArkCreate(target, {
    job,
    urlOf: (ref) => `https://gw/media/${ref.media_id}`,
  });
  assertEquals(url, "https://ark.example/api/v3/contents/generations/tasks");
  assertEquals((init.headers as Record<string, string>).authorization, "Bearer sk");
  assertEquals(JSON.parse(init.body as string), {
    model: "seedance",
    content: [
      { type: "text", text: "a cat" },
      { type: "image_url", image_url: { url: "https://gw/media/med_a" }, role: "reference_image" },
      { type: "video_url", video_url: { url: "https://gw/media/med_v" }, role: "reference_video" },
      { type: "audio_url", audio_url: { url: "https://gw/media/med_s" }, role: "reference_audio" },
    ],
    resolution: "1080p",
    ratio: "16:9",
    duration: 6,
  });
  assertEquals(
    buildArkPoll(target, "cgt-1").url,
    `${channel.base_url}/contents/generations/tasks/cgt-1`,
  );
});

Deno.test("ark answers: id, every status, errors kept as the failure reason", () => {
  assertEquals(readCreatedTaskId('{"id":"cgt-9"}'), "cgt-9");
  let error: unknown;
  try {
    readCreatedTaskId("{}");
  } catch (caught) {
    error = caught;
  }
  assertOk(error instanceof UpstreamAttemptError && error.retryable);
  assertEquals(readArkTask('{"status":"queued"}'), { state: "queued" });
  assertEquals(readArkTask('{"status":"running"}'), { state: "running" });
  assertEquals(readArkTask('{"status":"succeeded","content":{"video_url":"https://v/1.mp4"}}'), {
    state: "succeeded",
    videoUrl: "https://v/1.mp4",
  });
  assertEquals(readArkTask('{"status":"succeeded","content":{}}').state, "failed");
  assertEquals(
    readArkTask(
      '{"status":"failed","error":{"code":"InputImageSensitiveContentDetected","message":"no"}}',
    ),
    { state: "failed", reason: "upstream: InputImageSensitiveContentDetected: no" },
  );
  assertEquals(readArkTask('{"status":"cancelled"}').state, "failed");
  assertEquals(readArkTask('{"status":"expired"}').state, "failed");
});

Deno.test("gateway-video: multipart with the files and an Idempotency-Key; states read back", async () => {
  const { url, init } = await buildGatewayVideoCreate(
    { channel: { base_url: "https://next/v1" } as Channel, apiKey: "sk-next", model: "vid-2" },
    {
      job,
      references: {
        urlOf: () => "",
        fileOf: (ref) => Promise.resolve(new Blob([ref.media_id], { type: ref.content_type })),
        idempotencyKey: "task_abc",
      },
    },
  );
  assertEquals(url, "https://next/v1/video/generations");
  assertEquals((init.headers as Record<string, string>)["idempotency-key"], "task_abc");
  const form = init.body as FormData;
  assertEquals(form.get("duration"), "6");
  assertEquals(form.get("ratio"), "16:9");
  assertEquals(await (form.get("video") as File).text(), "med_v");
  assertEquals((form.get("audio") as File).name, "s.wav");
  const answer = (data: Record<string, unknown>) => JSON.stringify({ code: "success", data });
  assertEquals(readGatewayVideoTask(answer({ status: "QUEUED", progress: "20%" })), {
    state: "queued",
    progress: "20%",
  });
  assertEquals(
    readGatewayVideoTask(answer({ status: "IN_PROGRESS", progress: "50%" })).state,
    "running",
  );
  assertEquals(
    readGatewayVideoTask(answer({ status: "SUCCESS", data: { video_url: "https://r.mp4" } })),
    { state: "succeeded", videoUrl: "https://r.mp4" },
  );
  assertEquals(readGatewayVideoTask(answer({ status: "FAILURE", fail_reason: "nope" })), {
    state: "failed",
    reason: "upstream: nope",
  });
});

Deno.test("channel test calls: Ark lists one task of the model, a chained gateway reads the model", () => {
  const ark = buildArkProbe(target);
  assertEquals(ark.init.method, "GET");
  assertEquals(
    ark.url,
    "https://ark.example/api/v3/contents/generations/tasks?page_num=1&page_size=1&filter.model=seedance",
  );
  readArkProbe('{"items":[],"total":0}');
  for (const text of ['{"error":{"code":"NotFound"}}', "<html>", '{"items":{}}']) {
    let thrown: unknown;
    try {
      readArkProbe(text);
    } catch (error) {
      thrown = error;
    }
    assertOk(thrown instanceof UpstreamAttemptError, text);
  }
  const next = buildGatewayVideoProbe({
    channel: { base_url: "https://next.example/v1" } as Channel,
    apiKey: "sk",
    model: "vid/2 x",
  });
  assertEquals(next.url, "https://next.example/v1/models/vid%2F2%20x");
  readGatewayVideoProbe('{"id":"vid-2","object":"model"}');
  let thrown: unknown;
  try {
    readGatewayVideoProbe('{"object":"list","data":[]}');
  } catch (error) {
    thrown = error;
  }
  assertOk(thrown instanceof UpstreamAttemptError);
});
