import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  KNOWN_SPEECH_FIELDS,
  speechRequestSchema,
  takesInstructions,
} from "../../../core/jobs/speech_job.ts";

Deno.test("speech job: defaults and limits as OpenAI's reference has them", () => {
  const parsed = speechRequestSchema.parse({ model: "m", input: "hi", voice: "alloy" });
  assertEquals(parsed.response_format, "mp3");
  assertEquals(parsed.speed, undefined);
  assertOk(
    speechRequestSchema.safeParse({ model: "m", input: "hi", voice: { id: "voice_1" } })
      .success,
  );
  for (const speed of [0.25, 4]) {
    assertOk(
      speechRequestSchema.safeParse({ model: "m", input: "x", voice: "ash", speed }).success,
    );
  }
  for (const bad of [{ speed: 4.01 }, { speed: 0.2 }, { voice: "Alloy" }, { input: "" }]) {
    assertOk(
      !speechRequestSchema.safeParse({ model: "m", input: "x", voice: "ash", ...bad }).success,
      JSON.stringify(bad),
    );
  }
  assertOk(KNOWN_SPEECH_FIELDS.has("instructions") && !KNOWN_SPEECH_FIELDS.has("user"));
});

Deno.test("speech job: tts-1 and tts-1-hd take no instructions; newer models do", () => {
  assertEquals(takesInstructions("tts-1"), false);
  assertEquals(takesInstructions("tts-1-hd"), false);
  assertEquals(takesInstructions("tts-1-1106"), false);
  assertEquals(takesInstructions("gpt-4o-mini-tts"), true);
  assertEquals(takesInstructions("tts-10"), true);
});
