import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  buildVeoDownload,
  buildVeoPoll,
  readVeoCreated,
  readVeoOperation,
  veoRefusal,
} from "../../../core/providers/veo_video.ts";
import { FinalDownloadError } from "../../../core/providers/provider.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";

const channel = { base_url: "https://generativelanguage.googleapis.com/v1beta" } as Channel;
const target = { channel, apiKey: "AIza-test", model: "veo-3.0-generate-001" };

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

Deno.test("veo: the operation's states in neutral terms", () => {
  const name = "models/veo-3.0-generate-001/operations/abc";
  assertEquals(readVeoCreated(JSON.stringify({ name })), name);
  assertEquals(readVeoOperation(JSON.stringify({ name })), { state: "running" });
  const uri = "https://generativelanguage.googleapis.com/v1beta/files/f1:download?alt=media";
  assertEquals(
    readVeoOperation(JSON.stringify({
      name,
      done: true,
      response: { generateVideoResponse: { generatedSamples: [{ video: { uri } }] } },
    })),
    { state: "succeeded", download: uri },
  );
  assertEquals(
    readVeoOperation(JSON.stringify({ name, done: true, error: { code: 3, message: "bad" } })),
    { state: "failed", reason: "upstream: 3: bad" },
  );
  assertEquals(
    readVeoOperation(JSON.stringify({
      name,
      done: true,
      response: { generateVideoResponse: { raiMediaFilteredReasons: ["unsafe"] } },
    })),
    { state: "failed", reason: "upstream: filtered: unsafe" },
  );
});

Deno.test("veo: polls and downloads go only to the base URL's host, with the key", () => {
  const poll = buildVeoPoll(target, "models/veo-3.0-generate-001/operations/abc");
  assertEquals(
    poll.url,
    "https://generativelanguage.googleapis.com/v1beta/models/veo-3.0-generate-001/operations/abc",
  );
  assertEquals((poll.init.headers as Record<string, string>)["x-goog-api-key"], "AIza-test");
  assertOk(thrown(() => buildVeoPoll(target, "../../elsewhere")), "a name with .. is refused");
  const uri = "https://generativelanguage.googleapis.com/v1beta/files/f1:download?alt=media";
  assertEquals(buildVeoDownload(target, uri).url, uri);
  assertOk(
    thrown(() => buildVeoDownload(target, "https://evil.example/f1")) instanceof
      FinalDownloadError,
    "another host is never sent the key",
  );
});

Deno.test("veo: refusals name the field Veo cannot take; Veo 2 makes 5 to 8 seconds", () => {
  const ask = { duration: 8, ratio: "9:16", references: [] };
  assertEquals(veoRefusal("veo-3.0-generate-001", ask), undefined);
  assertEquals(veoRefusal("veo-3.0-generate-001", { ...ask, duration: 5 })?.param, "duration");
  assertEquals(veoRefusal("veo-2.0-generate-001", { ...ask, duration: 5 }), undefined);
  assertEquals(veoRefusal("veo-2.0-generate-001", { ...ask, duration: 4 })?.param, "duration");
  assertEquals(veoRefusal("veo-3.0-generate-001", { ...ask, ratio: "4:3" })?.param, "ratio");
  assertEquals(
    veoRefusal("veo-3.0-generate-001", { ...ask, references: [{ field: "video", kind: "video" }] })
      ?.param,
    "video",
  );
});
