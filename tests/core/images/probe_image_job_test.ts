import { assertEquals } from "../../helpers/assert.ts";
import { probeImageJob } from "../../../core/images/probe_image_channel.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";

const channelOf = (type: string, upstream: string) =>
  ({ type, model_map: { "img": upstream }, models: ["img"] }) as unknown as Channel;

Deno.test("channel test image: one 1024x1024 image, quality low only where the model takes it", () => {
  const cases: Array<[string, string, string]> = [
    ["openai-images", "gpt-image-1", "low"],
    ["openai-images", "gpt-image-1-mini", "low"],
    ["openai-images", "dall-e-3", "auto"],
    ["openai-images", "seedream-4", "auto"],
    ["gemini", "gemini-2.5-flash-image", "auto"],
  ];
  for (const [type, upstream, quality] of cases) {
    const job = probeImageJob(channelOf(type, upstream), "img");
    assertEquals(
      [job.action, job.model, job.n, job.size, job.quality, job.images],
      ["generations", "img", 1, "1024x1024", quality, []],
      `${type} ${upstream}`,
    );
  }
});
