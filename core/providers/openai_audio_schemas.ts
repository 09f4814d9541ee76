/** OpenAI audio transcription answers, as lenient schemas (only what the gateway reads). */

import { z } from "zod";
import { optionalString } from "../util/lenient_schema.ts";

/** `usage` of gpt-4o-transcribe style models: `{type: "tokens", input_tokens, output_tokens}`. */
const usageSchema = z.looseObject({
  input_tokens: z.unknown().optional(),
  output_tokens: z.unknown().optional(),
}).optional().catch(undefined);

/** A json or verbose_json answer: `{text, usage?, …}`. */
export const transcriptAnswerSchema = z.looseObject({ text: optionalString, usage: usageSchema });

/** A stream event: `transcript.text.delta {delta}` or `transcript.text.done {text, usage}`. */
export const transcriptEventSchema = z.looseObject({
  type: optionalString,
  delta: optionalString,
  text: optionalString,
  usage: usageSchema,
});
