/**
 * The known non-conformances the contract tests find on this branch, each skipping only its own
 * check (a field a schema requires, or a named check of the test code). Those of issue 30 are
 * fixed on its other branches: this list is emptied as they merge (a gap whose fix has landed
 * must go, and its check then passes). The last ones are findings of these tests, not yet items.
 */

import { dropRequired, type KnownGap } from "../../helpers/contracts.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const ISSUE = "issue 30, wire conformance";

export const KNOWN_GAPS: KnownGap[] = [
  {
    item: `${ISSUE}: Responses on converted channels carry every field OpenAI requires`,
    vendor: "openai",
    relax: (defs) => {
      const own = defs.Response.allOf.find((part: Json) => part.required?.includes("top_p"));
      own.required = own.required.filter((field: string) =>
        !["instructions", "metadata", "temperature", "top_p"].includes(field)
      );
    },
  },
  {
    item: `${ISSUE}: Responses carry \`tools\` as the request declared them (not \`[]\`)`,
    check: "responses-declared-tools",
  },
  {
    item: `${ISSUE}: response.function_call_arguments.done carries \`name\``,
    vendor: "openai",
    relax: (defs) => dropRequired(defs, "ResponseFunctionCallArgumentsDoneEvent", ["name"]),
  },
  {
    item: `${ISSUE}: Responses tool-call items stream one after another, not interleaved`,
    check: "responses-items-one-after-another",
  },
  {
    item: `${ISSUE}: on pass-through, an in-stream error continues the stream's sequence_number`,
    check: "responses-sequence-number error",
  },
  {
    item: `${ISSUE}: chat completions on converted channels carry message.refusal (null)`,
    vendor: "openai",
    relax: (defs) => dropRequired(defs, "ChatCompletionResponseMessage", ["refusal"]),
  },
  {
    item: `${ISSUE}: Gemini in-stream errors carry "@type" in each details entry`,
    vendor: "gemini",
    place: "stream-error",
    relax: (defs) => dropRequired(defs, "google.protobuf.Any", ["@type"]),
  },
  {
    item: `${ISSUE}: Gemini's HTTP status and \`status\` agree: 503 with UNAVAILABLE`,
    check: "gemini-status-agrees 502 UNAVAILABLE",
  },
  {
    item: `${ISSUE}: Gemini's HTTP status and \`status\` agree: 400 with INVALID_ARGUMENT`,
    check: "gemini-status-agrees 413 INVALID_ARGUMENT",
  },
  {
    item: `${ISSUE}: Gemini's ErrorInfo \`reason\` is UPPER_SNAKE_CASE`,
    vendor: "gemini",
    relax: (defs) => {
      const inAny = defs["google.protobuf.Any"].allOf
        .find((rule: Json) => rule.then.properties.reason).then;
      for (const schema of [defs["google.rpc.ErrorInfo"], inAny]) {
        schema.properties.reason = { type: "string" };
      }
    },
  },
  {
    item: `${ISSUE}: Anthropic errors: an upstream failure is 500 api_error, 529 overloaded_error`,
    check: "anthropic-error-status 502 api_error",
  },
  {
    item: `${ISSUE}: Anthropic errors: an upstream 500 is a 500 api_error`,
    check: "anthropic-upstream-status 500",
  },
  {
    item: `${ISSUE}: Anthropic errors: an upstream 529 is a 529 overloaded_error`,
    check: "anthropic-upstream-status 529",
  },
  {
    item: `${ISSUE}: Anthropic messages converted from other channels carry usage.service_tier ` +
      "and usage.cache_creation",
    vendor: "anthropic",
    relax: (defs) => dropRequired(defs, "Usage", ["service_tier", "cache_creation"]),
  },
  {
    item: `${ISSUE}: the Anthropic-shaped model list carries max_input_tokens / max_tokens`,
    vendor: "anthropic",
    relax: (defs) => dropRequired(defs, "ModelInfo", ["max_input_tokens", "max_tokens"]),
  },
  {
    item: "issue 30, the specification: generateContent / streamGenerateContent on an unknown " +
      "model answer 404 NOT_FOUND",
    check: "unknown-model-404 generate-content",
  },
  {
    item: "issue 30, the specification: countTokens is served where it is listed",
    check: "gemini-count-tokens",
  },
  // Found by these tests, in no item of issue 30 yet:
  {
    item: "contract tests: the Anthropic ModelInfo also requires capabilities, deprecated_at, " +
      "lifecycle, line and retires_at (nullable but present)",
    vendor: "anthropic",
    relax: (defs) =>
      dropRequired(defs, "ModelInfo", [
        "capabilities",
        "deprecated_at",
        "lifecycle",
        "line",
        "retires_at",
      ]),
  },
  {
    item: "contract tests: Gemini's no-balance error is 402 FAILED_PRECONDITION, which " +
      "google.rpc.Code maps to 400",
    check: "gemini-status-agrees 402 FAILED_PRECONDITION",
  },
];
