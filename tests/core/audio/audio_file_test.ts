import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { checkedAudioFile } from "../../../core/audio/audio_file.ts";
import { probeWav } from "../../../core/audio/probe_audio_channel.ts";
import { mediaFixture } from "../../helpers/media_tools.ts";
import { GatewayError } from "../../../core/errors.ts";

const bytesOf = (file: string) => mediaFixture(file) as Uint8Array<ArrayBuffer>;

Deno.test("audio formats are judged from the bytes; the name sent upstream carries the format", async () => {
  const wav = await checkedAudioFile(bytesOf("wav_2500ms.wav"), "talk.wav");
  assertEquals([wav.contentType, wav.filename], ["audio/wav", "talk.wav"]);
  const misnamed = await checkedAudioFile(bytesOf("mp3_2s.mp3"), "talk.wav");
  assertEquals([misnamed.contentType, misnamed.filename], ["audio/mpeg", "audio.mp3"]);
  const mp4 = await checkedAudioFile(bytesOf("mp4_audio_only.mp4"), "blob");
  assertEquals(mp4.filename.startsWith("audio."), true);
  const probe = await checkedAudioFile(probeWav(), "probe.wav");
  assertEquals(probe.contentType, "audio/wav");
});

Deno.test("a file that is not audio, or empty, is a 400 about file", async () => {
  for (const bytes of [bytesOf("garbage.bin"), new Uint8Array(0), new TextEncoder().encode("hi")]) {
    const error = await checkedAudioFile(bytes as Uint8Array<ArrayBuffer>, "a.mp3").then(
      () => undefined,
      (error) => error,
    );
    assertOk(error instanceof GatewayError);
    assertEquals([error.status, error.param], [400, "file"]);
  }
});
