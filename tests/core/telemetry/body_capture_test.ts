import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { boundedRedacted, MAX_CAPTURED_BYTES } from "../../../core/telemetry/body_capture.ts";

Deno.test("boundedRedacted() redacts secrets anywhere in a long body and cuts it to its bound", () => {
  const secret = "sk-live-0123456789abcdef";
  const body = `${"é".repeat(MAX_CAPTURED_BYTES)} ${secret}`;
  const short = boundedRedacted(`start ${secret} ${"x".repeat(5000)} ${secret} end`);
  assertEquals(short.cut, false);
  assertOk(!short.text.includes(secret) && short.text.endsWith("[redacted] end"));
  const long = boundedRedacted(body);
  assertEquals(long.cut, true);
  assertOk(new TextEncoder().encode(long.text).length <= MAX_CAPTURED_BYTES + 20);
  assertOk(!long.text.includes("\uFFFD"), "a character was cut in half");
});

Deno.test("boundedRedacted() removes the channel's own keys given to it", () => {
  assertEquals(
    boundedRedacted("key upstream-secret-1", ["upstream-secret-1"]).text,
    "key [redacted]",
  );
});
