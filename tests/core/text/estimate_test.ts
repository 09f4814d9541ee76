import { assertEquals } from "../../helpers/assert.ts";
import { CODECS } from "../../../core/formats/codecs.ts";
import type { NeutralEvent, NeutralResponse, TextFormat } from "../../../core/formats/neutral.ts";
import { outputCharsOfEvent, outputCharsOfParts } from "../../../core/text/estimate.ts";

const FORMATS: TextFormat[] = ["openai-chat", "openai-responses", "anthropic", "gemini"];

/** "Hi", reasoning and one tool call: 2 + 9 + 16 characters an estimate counts. */
const answer: NeutralResponse = {
  id: "a1",
  model: "up",
  created: 0,
  parts: [
    { type: "reasoning", text: "Thinking." },
    { type: "text", text: "Hi" },
    { type: "tool_call", id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
  ],
  stop: "tool_calls",
};
const COUNTED = 2 + 9 + 16;

const events: NeutralEvent[] = [
  { type: "start", id: "a1", model: "up" },
  { type: "reasoning", text: "Thinking." },
  { type: "text", text: "Hi" },
  { type: "tool_call", index: 0, id: "call_1", name: "get_weather", arguments: '{"city":' },
  { type: "tool_call", index: 0, arguments: '"Paris"}' },
  { type: "stop", reason: "tool_calls" },
];

/** The `event:` names and data of an SSE text. */
function sse(text: string): Array<{ event?: string; data: string }> {
  return text.split(/\r?\n\r?\n/).filter(Boolean).map((frame) => ({
    event: /^event: (.*)$/m.exec(frame)?.[1],
    data: /^data: (.*)$/m.exec(frame)![1],
  }));
}

Deno.test("outputCharsOfParts counts text, reasoning and tool arguments, not names or images", () => {
  assertEquals(outputCharsOfParts(answer.parts), COUNTED);
  assertEquals(
    outputCharsOfParts([{ type: "image", mimeType: "image/png", data: "x".repeat(4096) }]),
    0,
  );
  assertEquals(events.reduce((sum, event) => sum + outputCharsOfEvent(event), 0), COUNTED);
});

for (const format of FORMATS) {
  Deno.test(`${format}: an answer without usage counts the same whole and streamed, whatever its envelope holds`, () => {
    const codec = CODECS[format];
    // A whole answer with 4 KB of fields an estimate must not count.
    const whole = { ...codec.encodeResponse(answer, "up"), padding: "x".repeat(4096) };
    delete whole.usage;
    delete whole.usageMetadata;
    assertEquals(outputCharsOfParts(codec.decodeResponse(whole).parts), COUNTED);

    const encoder = codec.streamEncoder("up", { includeUsage: false, framing: "sse" });
    const text = events.map((event) => encoder.encode(event)).join("") + encoder.end();
    const decoder = codec.streamDecoder();
    let chars = 0;
    for (const frame of sse(text)) {
      for (const event of decoder.decode(frame.event, frame.data)) {
        chars += outputCharsOfEvent(event);
      }
    }
    assertEquals(chars, COUNTED);
  });
}
