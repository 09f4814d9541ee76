/** Each format's in-stream error names the gateway's failure codes in the format's own terms. */

import { assertEquals } from "../../helpers/assert.ts";
import { CODECS } from "../../../core/formats/codecs.ts";
import type { InboundFormat, TextFormat } from "../../../core/formats/neutral.ts";
import { geminiStreamError } from "../../../core/formats/gemini/stream_error.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The JSON data of the error frame `format`'s stream encoder writes for `code`. */
function errorOf(format: TextFormat, code: string): Json {
  const frame = CODECS[format].streamEncoder("m", { includeUsage: false, framing: "sse" })
    .error("the upstream went quiet", code);
  const data = frame.split(/\r?\n/).find((line) => line.startsWith("data:"))!;
  return JSON.parse(data.slice(5));
}

/** What a client reads as the error's name on each interface. */
const NAME_OF: Record<InboundFormat, (error: Json) => unknown> = {
  "openai-chat": (frame) => [frame.error.type, frame.error.code, frame.error.param],
  "openai-responses": (event) => [event.type, event.code],
  anthropic: (event) => [event.type, event.error.type],
  gemini: (frame) => [frame.error.code, frame.error.status, frame.error.details[0].reason],
};

Deno.test("stream error encoders: an upstream gone silent (upstream_timeout) is a timeout in every format", () => {
  const expected: Record<InboundFormat, unknown> = {
    "openai-chat": ["upstream_error", "upstream_timeout", null],
    "openai-responses": ["error", "upstream_timeout"],
    anthropic: ["error", "timeout_error"],
    gemini: [504, "DEADLINE_EXCEEDED", "UPSTREAM_TIMEOUT"],
  };
  for (const [format, name] of Object.entries(expected) as Array<[InboundFormat, unknown]>) {
    assertEquals(NAME_OF[format](errorOf(format, "upstream_timeout")), name, format);
  }
});

Deno.test("stream error encoders: a stream cut short keeps its names (api_error, 500 INTERNAL)", () => {
  const expected: Record<InboundFormat, unknown> = {
    "openai-chat": ["upstream_error", "upstream_stream_interrupted", null],
    "openai-responses": ["error", "upstream_stream_interrupted"],
    anthropic: ["error", "api_error"],
    gemini: [500, "INTERNAL", "UPSTREAM_STREAM_INTERRUPTED"],
  };
  for (const [format, name] of Object.entries(expected) as Array<[InboundFormat, unknown]>) {
    assertEquals(NAME_OF[format](errorOf(format, "upstream_stream_interrupted")), name, format);
  }
});

Deno.test("geminiStreamError(): codes naming a timeout are 504 DEADLINE_EXCEEDED, others 500 INTERNAL", () => {
  const cases: Array<[string, string]> = [
    ["upstream_timeout", "DEADLINE_EXCEEDED"],
    ["DEADLINE_EXCEEDED", "DEADLINE_EXCEEDED"],
    ["timeout_error", "DEADLINE_EXCEEDED"],
    ["upstream_stream_interrupted", "INTERNAL"],
    ["upstream_error", "INTERNAL"],
    ["overloaded_error", "INTERNAL"],
  ];
  for (const [code, status] of cases) {
    const error = geminiStreamError("m", code).error;
    assertEquals([error.status, error.code], [status, status === "INTERNAL" ? 500 : 504], code);
  }
});
