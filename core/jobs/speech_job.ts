/**
 * A speech request (`POST /v1/audio/speech`) as OpenAI's API reference defines it, with an error
 * per rule, and the content type of each audio format.
 */

import { z } from "zod";
import { invalidRequest } from "../errors.ts";

/**
 * The characters of a speech input as billed and limited: Unicode code points, so an emoji or a
 * CJK character outside the BMP counts once (JavaScript's `length` would count two).
 */
export function speechCharacters(input: string): number {
  let count = 0;
  for (const _ of input) count++;
  return count;
}

/** The longest `input`, in characters (OpenAI's limit). */
export const MAX_SPEECH_INPUT_CHARS = 4096;

/** OpenAI's built-in voices. */
export const SPEECH_VOICES = [
  "alloy",
  "ash",
  "ballad",
  "coral",
  "echo",
  "fable",
  "onyx",
  "nova",
  "sage",
  "shimmer",
  "verse",
  "marin",
  "cedar",
] as const;

/** The audio formats and the content type each is answered with. */
export const SPEECH_CONTENT_TYPES = {
  mp3: "audio/mpeg",
  opus: "audio/opus",
  aac: "audio/aac",
  flac: "audio/flac",
  wav: "audio/wav",
  pcm: "audio/pcm",
} as const;

export type SpeechFormat = keyof typeof SPEECH_CONTENT_TYPES;

const formats = Object.keys(SPEECH_CONTENT_TYPES) as [SpeechFormat, ...SpeechFormat[]];

const input = z.string({
  error: (issue) => issue.input === undefined ? "input is required" : "input must be a string",
}).min(1, "input must not be empty").refine(
  (text) => speechCharacters(text) <= MAX_SPEECH_INPUT_CHARS,
  `input must be at most ${MAX_SPEECH_INPUT_CHARS.toLocaleString("en")} characters`,
);

/** A built-in voice by name, or a custom voice object `{id}` (passed through as it came). */
const voice = z.union([
  z.enum(SPEECH_VOICES),
  z.strictObject({ id: z.string().min(1) }),
], {
  error: (issue) =>
    issue.input === undefined
      ? "voice is required"
      : `voice must be one of ${SPEECH_VOICES.join(", ")}, or a custom voice {"id": "voice_…"}`,
});

export const speechRequestSchema = z.object({
  model: z.string({ error: "model is required" }).min(1, "model must not be empty"),
  input,
  voice,
  response_format: z.enum(formats, {
    error: `response_format must be one of ${formats.join(", ")}`,
  }).default("mp3"),
  speed: z.number({ error: "speed must be a number from 0.25 to 4.0" })
    .min(0.25, "speed must be at least 0.25").max(4, "speed must be at most 4.0").optional(),
  instructions: z.string({ error: "instructions must be a string" }).max(
    MAX_SPEECH_INPUT_CHARS,
    `instructions must be at most ${MAX_SPEECH_INPUT_CHARS.toLocaleString("en")} characters`,
  ).optional(),
  /**
   * `audio` (the default) is the only stream format served: the gateway relays the audio bytes
   * as they come. OpenAI's `sse` (audio as base64 events, gpt-4o-mini-tts only) is refused.
   */
  stream_format: z.literal("audio", {
    error: "stream_format must be 'audio'; this gateway does not serve speech as SSE events",
  }).optional(),
});

export type SpeechRequest = z.infer<typeof speechRequestSchema>;

/** The fields a speech request may carry; any other is ignored and named. */
export const KNOWN_SPEECH_FIELDS = new Set(Object.keys(speechRequestSchema.shape));

/** Whether the upstream model takes `instructions` (every one but tts-1 and tts-1-hd). */
export function takesInstructions(upstreamModel: string): boolean {
  return !/^tts-1(-hd)?(-\d|$)/i.test(upstreamModel);
}

/** A 400 for a speech body that is not a JSON object. */
export function notAnObject() {
  return invalidRequest("The request body must be a JSON object");
}
