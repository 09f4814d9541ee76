import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { UpstreamCall } from "../../../core/upstream/attempt.ts";

Deno.test("UpstreamCall.streaming() ends the first-byte deadline and sets the idle time for the pump", async () => {
  const call = new UpstreamCall(10, new AbortController().signal);
  call.streaming(60_000);
  assertEquals(call.timeoutMs, 60_000);
  // Past the first-byte deadline: the call's own timer no longer aborts it.
  await new Promise((resolve) => setTimeout(resolve, 40));
  assertOk(!call.signal.aborted);
  assertOk(!call.timedOut);
  call.done();
});

Deno.test("UpstreamCall aborts when no first byte comes within its timeout", async () => {
  const call = new UpstreamCall(10, new AbortController().signal);
  await new Promise((resolve) => setTimeout(resolve, 40));
  assertOk(call.signal.aborted);
  assertOk(call.timedOut);
});
