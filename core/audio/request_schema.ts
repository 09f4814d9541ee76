/**
 * The text fields of OpenAI's transcription and translation requests, with an error per rule.
 * Form fields arrive as strings; numbers and booleans are read from them.
 */

import { z } from "zod";
import { RESPONSE_FORMATS } from "../jobs/transcription_job.ts";

const model = z.string({
  error: (issue) => issue.input === undefined ? "model is required" : "model must be a string",
}).min(1, "model must not be empty");

const responseFormat = z.enum(RESPONSE_FORMATS, {
  error: `response_format must be one of ${RESPONSE_FORMATS.join(", ")}`,
}).default("json");

const temperature = z.string().regex(/^\s*[0-9]*\.?[0-9]+\s*$/, "temperature must be a number")
  .refine((value) => Number(value) >= 0 && Number(value) <= 1, {
    message: "temperature must be between 0 and 1",
  });

const prompt = z.string().max(
  10_000,
  "prompt must be at most 10,000 characters",
);

/** The fields of a translation (`/v1/audio/translations`): into English, whisper-1 style. */
export const translationFieldsSchema = z.strictObject({
  model,
  prompt: prompt.optional(),
  response_format: responseFormat,
  temperature: temperature.optional(),
});

/** The fields of a transcription (`/v1/audio/transcriptions`). */
export const transcriptionFieldsSchema = z.strictObject({
  model,
  language: z.string().regex(
    /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/,
    "language must be an ISO-639-1 code such as 'en'",
  ).optional(),
  prompt: prompt.optional(),
  response_format: responseFormat,
  temperature: temperature.optional(),
  stream: z.enum(["true", "false"], { error: "stream must be true or false" }).optional(),
  /** `word` and/or `segment`, repeated as `timestamp_granularities[]`; needs verbose_json. */
  "timestamp_granularities[]": z.array(
    z.enum(["word", "segment"], {
      error: "timestamp_granularities[] values must be 'word' or 'segment'",
    }),
  ).optional(),
  /** `logprobs` (gpt-4o-transcribe models with json). */
  "include[]": z.array(z.enum(["logprobs"], { error: "include[] values must be 'logprobs'" }))
    .optional(),
  /** `auto` or a JSON server_vad object, passed on as sent. */
  chunking_strategy: z.string().optional(),
}).refine(
  (fields) =>
    !fields["timestamp_granularities[]"]?.length || fields.response_format === "verbose_json",
  {
    message: "timestamp_granularities[] needs response_format verbose_json",
    path: ["timestamp_granularities[]"],
  },
);

/** Fields given as repeated form parts (`name[]`, or `name` repeated). */
export const LIST_FIELDS = new Set(["timestamp_granularities[]", "include[]"]);
