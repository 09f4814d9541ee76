import { assertEquals } from "../../helpers/assert.ts";
import { transcriptionBill, transcriptionHold } from "../../../core/audio/transcription_pricing.ts";

const TOKENS = { input: 1_000_000, output: 1_000_000 };

Deno.test("a per-second model holds and bills the seconds read", () => {
  const input = { seconds: 2.5, bytes: 80_044, prompt: "" };
  assertEquals(transcriptionHold({ per_second: 6000 }, input), 15_000);
  const bill = transcriptionBill({ per_second: 6000 }, input, { transcriptChars: 10 });
  assertEquals(bill.pricing.amount, 15_000);
  assertEquals(bill.billedSeconds, 2.5);
  assertEquals(bill.usage, undefined);
});

Deno.test("a per-token model holds 20 tokens a second plus the prompt, and the output bound", () => {
  const input = { seconds: 10, bytes: 1_000, prompt: "abcd" };
  // 200 audio + 4 prompt bytes + 16 in, 2,000 out, at 1 unit a token.
  assertEquals(transcriptionHold(TOKENS, input), 220 + 2_000);
  assertEquals(transcriptionHold(TOKENS, { ...input, maxOutputTokens: 100 }), 320);
  // Unreadable: the bytes at 8 kb/s bound the seconds.
  assertEquals(transcriptionHold(TOKENS, { seconds: undefined, bytes: 5_000, prompt: "" }), 2_116);
});

Deno.test("a per-token model bills reported usage, else the estimate", () => {
  const input = { seconds: 10, bytes: 1_000, prompt: "abcd" };
  const reported = transcriptionBill(TOKENS, input, {
    reported: { input_tokens: 90, output_tokens: 12 },
    transcriptChars: 48,
  });
  assertEquals(reported.usageSource, "upstream");
  assertEquals(reported.pricing.amount, 102);
  const estimated = transcriptionBill(TOKENS, input, { transcriptChars: 48 });
  assertEquals(estimated.usageSource, "estimate");
  // 10 tokens a second + 1 for the prompt in, 48 / 4 out.
  assertEquals(estimated.usage, { input_tokens: 101, output_tokens: 12, cached_input_tokens: 0 });
  const absurd = transcriptionBill(TOKENS, input, {
    reported: { input_tokens: 10_000_000, output_tokens: 12 },
    transcriptChars: 48,
  });
  assertEquals(absurd.usageSource, "estimate");
  const noOutput = transcriptionBill(TOKENS, input, {
    reported: { input_tokens: 90, output_tokens: 0 },
    transcriptChars: 48,
  });
  assertEquals(noOutput.usageSource, "estimate");
});
